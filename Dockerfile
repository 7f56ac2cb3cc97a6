# Locus: build with the Swift toolchain on Debian 12, run on a slim Debian 12 with only the
# runtime libraries. The steps are the README's: scripts/setup installs the C libraries, then a
# release build. The index lives on a volume; mount the source data at /data/source to have the
# default Portland index built on first start, or mount a ready index at /data/portland.locus.
#
#   docker build -t locus .
#   docker run -v locus-data:/data -v /path/to/shared/data:/data/source:ro locus reverse -122.6296 45.5676
#   docker run -p 7878:7878 -e LOCUS_TOKEN=… -v locus-data:/data -v /path/to/shared/data:/data/source:ro locus
#     (the server listens beyond the container's loopback, so it requires a token; SIGTERM from
#     `docker stop` answers what is in flight and exits 0)

FROM swift:6.1-bookworm AS build
WORKDIR /src
COPY scripts/setup scripts/setup
RUN scripts/setup
# Resolve packages in their own layer so that source edits do not refetch them.
# The manifest names the test targets too, and SwiftPM checks their folders exist.
COPY Package.swift ./
COPY Tests Tests
COPY Sources/CGEOS Sources/CGEOS
COPY Sources/CPROJ Sources/CPROJ
COPY Sources/CSQLite Sources/CSQLite
COPY Sources/CGDAL Sources/CGDAL
COPY Sources/CZlib Sources/CZlib
RUN swift package resolve
COPY Sources Sources
COPY Data Data
COPY Web Web
RUN swift build -c release --static-swift-stdlib --product locus \
    && install -D .build/release/locus /opt/locus/bin/locus \
    && cp -r Data /opt/locus/Data \
    && cp -r Web /opt/locus/Web

FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       libgeos-c1v5 libproj25 proj-data libsqlite3-0 libgdal32 zlib1g ca-certificates libjs-leaflet \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data locus \
    && mkdir -p /data && chown locus /data
COPY --from=build /opt/locus /opt/locus
ENV PATH=/opt/locus/bin:$PATH \
    LOCUS_HOME=/opt/locus \
    LOCUS_DATA_DIR=/data/source \
    LOCUS_INDEX=/data/portland.locus
VOLUME ["/data"]
USER locus
WORKDIR /data
# 7878: protocol v1; 8080: HTTP (Esri, Pelias, Nominatim, /health, /ready, /metrics, the map page at /).
EXPOSE 7878 8080
# Alive and answering: `ping` is answered before authentication, over the socket in the volume.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s CMD ["locus", "ping", "--server", "unix:/data/locus.sock", "--timeout", "4"]
ENTRYPOINT ["locus"]
CMD ["serve", "--listen", "tcp://0.0.0.0:7878", "--listen", "unix:/data/locus.sock", "--http", "0.0.0.0:8080"]
