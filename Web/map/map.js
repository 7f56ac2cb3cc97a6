// The Locus map page: what the index answers, drawn. Plain JavaScript on Leaflet (Debian's
// libjs-leaflet, served by Locus at /leaflet/), no build step, no tiles: everything on the map
// comes from the server that serves the page.
//
// Data: /locus/info (the locator and its layers), /locus/suggest, /locus/geocode,
// /locus/reverse and /locus/addresses (Locus's own JSON, PROTOCOL.md), and each polygon layer
// from the ArcGIS FeatureServer (`query` with f=geojson, the view's envelope and
// maxAllowableOffset). Layer and field names come from the server: nothing here knows a city.
(function () {
  'use strict';

  const $ = (selector) => document.querySelector(selector);
  const state = {
    token: sessionStorage.getItem('locus-token') || tokenFromHash(),
    info: null,
    layers: [],            // one per index layer: {id, name, info, group, labels, seq, visible, colour}
    addresses: null,       // {group, seq, visible}
    candidateMarker: null,
    reverseGroup: null,
    lastClick: null,
    reverseSeq: 0,
    suggestSeq: 0,
    suggestions: [],
    active: -1,
    batch: null,
  };
  window.locusPage = state;  // for a look from the console (and the browser test)

  const palette = ['#3366cc', '#dc3912', '#109618', '#990099', '#0099c6', '#dd4477', '#66aa00', '#b82e2e'];
  const matchColours = {
    point_address: '#1a9641', interpolated: '#2b83ba', extrapolated: '#7b3294', intersection: '#008080',
    street: '#fdae61', postcode: '#a6611a', neighbourhood: '#a6611a', locality: '#a6611a',
  };
  const statusColours = { covered: '#1a9641', nearest: '#fdae61', outside: '#999999' };
  const failedColour = '#d7191c';
  const maxBatchMarkers = 20000;
  const maxListedFailures = 200;

  // MARK: Map

  const map = L.map('map', { zoomControl: true, attributionControl: true, preferCanvas: false, minZoom: 2, maxZoom: 21 });
  state.map = map;
  map.attributionControl.setPrefix('Locus · <a href="https://leafletjs.com">Leaflet</a>');
  L.control.scale({ metric: true, imperial: true }).addTo(map);
  const pointsRenderer = L.canvas({ padding: 0.2 });
  map.createPane('graticule').style.zIndex = 250;
  map.createPane('highlight').style.zIndex = 420;
  const graticule = L.layerGroup().addTo(map);

  const Coordinates = L.Control.extend({
    options: { position: 'bottomleft' },
    onAdd() {
      const div = L.DomUtil.create('div', 'coordinates');
      map.on('mousemove', (e) => { div.textContent = `${e.latlng.lng.toFixed(6)}, ${e.latlng.lat.toFixed(6)}`; });
      return div;
    },
  });
  new Coordinates().addTo(map);

  const InfoControl = L.Control.extend({
    options: { position: 'bottomright' },
    onAdd() {
      const div = L.DomUtil.create('div');
      div.id = 'info';
      L.DomEvent.disableClickPropagation(div);
      return div;
    },
  });
  new InfoControl().addTo(map);

  function tokenFromHash() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  /// `#map=ZOOM/LAT/LON` in the address: a view to come back to.
  function viewFromHash() {
    const m = /(?:^#|&)map=(\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)/.exec(location.hash);
    return m ? { zoom: Number(m[1]), center: [Number(m[2]), Number(m[3])] } : null;
  }

  /// Room for the panel on the left when fitting the map to something.
  const fitPadding = { paddingTopLeft: [380, 20], paddingBottomRight: [20, 20] };

  function setStatus(text) { $('#status').textContent = text || ''; }

  function escapeHTML(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  // MARK: Server

  class TokenNeeded extends Error {}

  /// Requests in flight, on the body for whoever waits for the page to settle (the browser test).
  let pending = 0;
  document.body.dataset.pending = '0';

  async function api(path, params) {
    pending++;
    document.body.dataset.pending = String(pending);
    try {
      return await request(path, params);
    } finally {
      pending--;
      document.body.dataset.pending = String(pending);
    }
  }

  async function request(path, params) {
    const url = new URL(path, location.origin);
    for (const [k, v] of Object.entries(params || {})) url.searchParams.set(k, v);
    const headers = state.token ? { Authorization: 'Bearer ' + state.token } : {};
    const response = await fetch(url, { headers });
    if (response.status === 401 || response.status === 403) {
      askForToken();
      throw new TokenNeeded('this server needs a token');
    }
    const body = await response.json();
    if (!response.ok || body.error) {
      const e = body.error || {};
      throw new Error((e.details && e.details[0]) || e.message || response.statusText);
    }
    return body;
  }

  function askForToken() {
    const form = $('#token-form');
    form.hidden = false;
    $('#token').focus();
  }

  $('#token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    state.token = $('#token').value.trim();
    sessionStorage.setItem('locus-token', state.token);
    $('#token-form').hidden = true;
    start();
  });

  function report(error) {
    if (error instanceof TokenNeeded) return;
    setStatus(error.message);
  }

  /// The view's envelope in lon/lat, inside what the server accepts.
  function viewBox(pad) {
    const b = map.getBounds().pad(pad || 0);
    const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
    return [clamp(b.getWest(), -180, 180), clamp(b.getSouth(), -85, 85), clamp(b.getEast(), -180, 180), clamp(b.getNorth(), -85, 85)]
      .map((v) => v.toFixed(7)).join(',');
  }

  /// Degrees of longitude one screen pixel spans here: the generalisation worth asking for.
  function degreesPerPixel() {
    const size = map.getSize();
    const b = map.getBounds();
    return size.x > 0 ? (b.getEast() - b.getWest()) / size.x : 0;
  }

  // MARK: Start

  async function start() {
    try {
      state.info = await api('/locus/info');
    } catch (e) {
      report(e);
      return;
    }
    showInfo(state.info);
    buildLayers(state.info);
    const view = viewFromHash();
    const e = state.info.extent;
    if (view) {
      map.setView(view.center, view.zoom);
    } else if (e) {
      map.fitBounds([[e.ymin, e.xmin], [e.ymax, e.xmax]], fitPadding);
    } else {
      map.setView([0, 0], 2);
    }
    map.on('moveend', scheduleRefresh);
    await refresh();
    document.body.dataset.ready = 'true';
  }

  function showInfo(info) {
    const index = info.locator.index;
    const m = index.metadata || {};
    const file = index.path.split('/').pop();
    const layers = index.layers.map((l) => `<li>${escapeHTML(l.name)}: ${l.feature_count.toLocaleString()} polygons <span class="hint">(name: ${escapeHTML(l.name_field)})</span></li>`).join('');
    const sources = index.sources.map((s) => `<li>${escapeHTML(s.name)}: ${escapeHTML(s.file)}${s.crs ? ' <span class="hint">' + escapeHTML(s.crs) + '</span>' : ''}</li>`).join('');
    const addresses = Number(m.address_count || 0);
    $('#info').innerHTML = `<h3>${escapeHTML(file)}</h3>
      <div>built <span id="info-built">${escapeHTML(m.build_time || '?')}</span> · Locus ${escapeHTML(info.locator.version)} · schema ${index.schema_version}</div>
      <div><span id="info-addresses">${addresses.toLocaleString()}</span> addresses</div>
      <ul id="info-layers">${layers}</ul>
      <div>sources:</div><ul id="info-sources">${sources}</ul>`;
  }

  function buildLayers(info) {
    const list = $('#layers ul');
    list.innerHTML = '';
    state.layers = info.locator.index.layers.map((layer, id) => {
      const colour = palette[id % palette.length];
      const entry = { id, name: layer.name, info: layer, colour, visible: true, seq: 0, group: L.layerGroup().addTo(map), labels: L.layerGroup().addTo(map) };
      const li = document.createElement('li');
      li.dataset.layer = layer.name;
      li.innerHTML = `<label><input type="checkbox" checked> <span class="swatch" style="background:${colour}"></span>${escapeHTML(layer.name)}</label>
        <span class="count">${layer.feature_count.toLocaleString()} polygons, <span class="shown">0</span> shown</span>`;
      li.querySelector('input').addEventListener('change', (e) => {
        entry.visible = e.target.checked;
        if (entry.visible) { entry.group.addTo(map); entry.labels.addTo(map); refreshLayer(entry); } else { entry.group.remove(); entry.labels.remove(); }
      });
      list.appendChild(li);
      entry.item = li;
      return entry;
    });
    const li = document.createElement('li');
    li.dataset.layer = '';
    li.innerHTML = `<label><input type="checkbox" checked> <span class="swatch" style="background:#e66101"></span>address points</label>
      <span class="count"><span class="shown">0</span> in view</span>`;
    state.addresses = { visible: true, seq: 0, group: L.layerGroup().addTo(map), item: li };
    li.querySelector('input').addEventListener('change', (e) => {
      state.addresses.visible = e.target.checked;
      if (e.target.checked) { state.addresses.group.addTo(map); refreshAddresses(); } else { state.addresses.group.remove(); }
    });
    list.appendChild(li);
  }

  let refreshTimer = null;
  function scheduleRefresh() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 120);
  }

  async function refresh() {
    drawGraticule();
    await Promise.all([...state.layers.filter((l) => l.visible).map(refreshLayer), refreshAddresses()]);
  }

  // MARK: Polygon layers

  async function refreshLayer(layer) {
    const seq = ++layer.seq;
    const path = `/arcgis/rest/services/${encodeURIComponent(state.info.service_name)}/FeatureServer/${layer.id}/query`;
    let data;
    try {
      data = await api(path, {
        where: '1=1', geometry: viewBox(0.1), geometryType: 'esriGeometryEnvelope', inSR: '4326',
        spatialRel: 'esriSpatialRelIntersects', outFields: 'id,name', returnGeometry: 'true', returnCentroid: 'true',
        maxAllowableOffset: degreesPerPixel().toPrecision(3), resultRecordCount: '1000', f: 'geojson',
      });
    } catch (e) {
      report(e);
      return;
    }
    if (seq !== layer.seq) return;
    layer.group.clearLayers();
    layer.labels.clearLayers();
    const className = `poly-layer-${layer.id}`;
    const drawn = L.geoJSON(data, {
      className,
      style: { color: layer.colour, weight: 1.5, fillColor: layer.colour, fillOpacity: 0.06 },
      onEachFeature: (feature, path) => path.bindTooltip(`${escapeHTML(feature.properties.name)} <span class="hint">${escapeHTML(layer.name)}</span>`, { sticky: true }),
    }).addTo(layer.group);
    const features = data.features || [];
    // A name where it fits: on polygons at least as wide on screen as the name is long.
    drawn.eachLayer((path) => {
      const f = path.feature;
      if (!f.centroid || !f.properties.name) return;
      const b = path.getBounds();
      const width = map.latLngToContainerPoint(b.getNorthEast()).x - map.latLngToContainerPoint(b.getSouthWest()).x;
      if (width < String(f.properties.name).length * 6.5) return;
      L.marker([f.centroid[1], f.centroid[0]], {
        interactive: false, keyboard: false,
        icon: L.divIcon({ className: 'poly-label', html: `<span>${escapeHTML(f.properties.name)}</span>`, iconSize: null }),
      }).addTo(layer.labels);
    });
    layer.item.querySelector('.shown').textContent = features.length.toLocaleString();
    layer.item.dataset.shown = String(features.length);
    if (data.exceededTransferLimit) setStatus(`${layer.name}: more than ${features.length} polygons in view; zoom in to see them all`);
  }

  // MARK: Address points

  async function refreshAddresses() {
    const a = state.addresses;
    if (!a || !a.visible) return;
    const seq = ++a.seq;
    let data;
    try {
      data = await api('/locus/addresses', { bbox: viewBox(0.05), limit: String(state.info.points_in_view) });
    } catch (e) {
      report(e);
      return;
    }
    if (seq !== a.seq) return;
    a.group.clearLayers();
    if (data.points) {
      for (const p of data.points) {
        L.circleMarker([p.y, p.x], { renderer: pointsRenderer, radius: 2.5, weight: 0, fillColor: '#e66101', fillOpacity: 0.85 })
          .bindTooltip(escapeHTML(p.address)).addTo(a.group);
      }
    } else if (data.cells) {
      // Density: each cell's points at their mean, the disc's area growing with the count, the
      // fullest cell's disc as wide as a cell (the server cuts the view's longer side in 64).
      const most = Math.max(1, ...data.cells.map((c) => c.count));
      const size = map.getSize();
      const largest = Math.max(2, Math.max(size.x, size.y) / 64 / 2);
      for (const c of data.cells) {
        L.circleMarker([c.y, c.x], {
          renderer: pointsRenderer, radius: Math.max(1.5, largest * Math.sqrt(c.count / most)), weight: 0, fillColor: '#e66101', fillOpacity: 0.35,
        }).bindTooltip(`${c.count.toLocaleString()} addresses`).addTo(a.group);
      }
    }
    a.item.querySelector('.count').innerHTML = data.points
      ? `<span class="shown">${data.count.toLocaleString()}</span> in view`
      : `<span class="shown">${data.count.toLocaleString()}</span> in view, as density: zoom in for points`;
    a.item.dataset.shown = String(data.count);
  }

  // MARK: Graticule

  function drawGraticule() {
    graticule.clearLayers();
    const b = map.getBounds();
    const span = Math.max(b.getEast() - b.getWest(), b.getNorth() - b.getSouth());
    const steps = [30, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001];
    const step = steps.find((s) => span / s >= 4) || steps[steps.length - 1];
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    const style = { pane: 'graticule', color: '#b9b5aa', weight: 0.6, interactive: false };
    const south = Math.max(b.getSouth(), -85), north = Math.min(b.getNorth(), 85);
    for (let x = Math.ceil(b.getWest() / step) * step; x <= b.getEast(); x += step) {
      L.polyline([[south, x], [north, x]], style).addTo(graticule);
      L.marker([north, x], { pane: 'graticule', interactive: false, keyboard: false,
        icon: L.divIcon({ className: 'graticule-label', html: x.toFixed(decimals) + '°', iconSize: null, iconAnchor: [-2, -2] }) }).addTo(graticule);
    }
    for (let y = Math.ceil(south / step) * step; y <= north; y += step) {
      L.polyline([[y, b.getWest()], [y, b.getEast()]], style).addTo(graticule);
      L.marker([y, b.getWest()], { pane: 'graticule', interactive: false, keyboard: false,
        icon: L.divIcon({ className: 'graticule-label', html: y.toFixed(decimals) + '°', iconSize: null, iconAnchor: [-30, 12] }) }).addTo(graticule);
    }
  }

  // MARK: Search

  const search = $('#search');
  const list = $('#suggestions');

  search.addEventListener('input', () => suggest(search.value));
  search.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!state.suggestions.length) return;
      const n = state.suggestions.length;
      state.active = e.key === 'ArrowDown' ? (state.active + 1) % n : (state.active - 1 + n) % n;
      renderSuggestions();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (state.active >= 0 && state.suggestions[state.active]) pick(state.suggestions[state.active]);
      else if (search.value.trim()) geocode({ text: search.value });
    } else if (e.key === 'Escape') {
      if (!list.hidden) { closeSuggestions(); } else { search.value = ''; clearCandidate(); }
    }
  });
  $('#search-form').addEventListener('submit', (e) => e.preventDefault());

  async function suggest(text) {
    const seq = ++state.suggestSeq;
    if (!text.trim()) { closeSuggestions(); return; }
    const params = { text, maxSuggestions: '8' };
    if (map.getZoom() >= 11) { const c = map.getCenter(); params.location = `${c.lng.toFixed(6)},${c.lat.toFixed(6)}`; }
    let data;
    try {
      data = await api('/locus/suggest', params);
    } catch (e) {
      report(e);
      return;
    }
    // Answers can overtake each other: only the last keystroke's is shown.
    if (seq !== state.suggestSeq) return;
    state.suggestions = data.suggestions;
    state.active = -1;
    renderSuggestions();
  }

  function renderSuggestions() {
    list.innerHTML = '';
    state.suggestions.forEach((s, i) => {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.dataset.key = s.key;
      li.innerHTML = `<span class="text">${escapeHTML(s.text)}</span><span class="type">${escapeHTML(s.type)}</span>`;
      if (i === state.active) { li.classList.add('active'); li.setAttribute('aria-selected', 'true'); }
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(s); });
      list.appendChild(li);
    });
    list.hidden = state.suggestions.length === 0;
  }

  function closeSuggestions() {
    state.suggestSeq++;
    state.suggestions = [];
    state.active = -1;
    list.hidden = true;
    list.innerHTML = '';
  }

  function pick(suggestion) {
    search.value = suggestion.text;
    closeSuggestions();
    geocode({ magicKey: suggestion.key });
  }

  async function geocode(params) {
    let data;
    try {
      data = await api('/locus/geocode', Object.assign({ explain: 'true', maxLocations: '5' }, params));
    } catch (e) {
      report(e);
      return;
    }
    setStatus('');
    showCandidates(data.candidates);
  }

  function showCandidates(candidates) {
    const section = $('#candidate');
    section.hidden = false;
    const body = section.querySelector('.body');
    if (!candidates.length) {
      body.innerHTML = '<p class="meta">no candidates</p>';
      delete section.dataset.address;
      clearMarker();
      return;
    }
    const choose = (c, i) => {
      section.dataset.address = c.address;
      section.dataset.lon = String(c.location.x);
      section.dataset.lat = String(c.location.y);
      section.dataset.score = String(c.score);
      section.dataset.matchType = c.match_type;
      const explain = (c.explain || []).map((line) => `<li>${escapeHTML(line)}</li>`).join('');
      const others = candidates.length > 1
        ? `<ul class="candidates">${candidates.map((o, j) => `<li data-index="${j}" class="${j === i ? 'chosen' : ''}">${o.score.toFixed(1)} ${escapeHTML(o.address)} <span class="hint">${escapeHTML(o.match_type)}</span></li>`).join('')}</ul>`
        : '';
      body.innerHTML = `<div class="answer">${escapeHTML(c.address)}</div>
        <div class="meta">score <b class="score">${c.score.toFixed(1)}</b> · <span class="match-type">${escapeHTML(c.match_type)}</span>${c.unit ? ' · unit ' + escapeHTML(c.unit) : ''}</div>
        <div class="meta">${c.location.x.toFixed(7)}, ${c.location.y.toFixed(7)} · key ${escapeHTML(c.key)}</div>
        ${explain ? `<ul class="explain">${explain}</ul>` : ''}${others}`;
      body.querySelectorAll('.candidates li').forEach((li) => li.addEventListener('click', () => choose(candidates[Number(li.dataset.index)], Number(li.dataset.index))));
      clearMarker();
      const at = [c.location.y, c.location.x];
      state.candidateMarker = L.marker(at, { title: c.address, alt: 'candidate' })
        .bindTooltip(`${escapeHTML(c.address)}<br>${c.score.toFixed(1)} · ${escapeHTML(c.match_type)}`).addTo(map);
      map.setView(at, Math.max(map.getZoom(), 17));
    };
    choose(candidates[0], 0);
  }

  function clearMarker() {
    if (state.candidateMarker) { state.candidateMarker.remove(); state.candidateMarker = null; }
  }

  function clearCandidate() {
    clearMarker();
    const section = $('#candidate');
    section.hidden = true;
    delete section.dataset.address;
  }

  // MARK: Reverse

  map.on('click', (e) => reverseAt(e.latlng));
  document.querySelectorAll('input[name=method]').forEach((r) => r.addEventListener('change', () => {
    if (state.lastClick) reverseAt(state.lastClick);
  }));

  async function reverseAt(latlng) {
    const seq = ++state.reverseSeq;
    state.lastClick = latlng;
    const method = document.querySelector('input[name=method]:checked').value;
    delete $('#reverse').dataset.answered;
    const location = `${latlng.lng.toFixed(7)},${latlng.lat.toFixed(7)}`;
    let answer;
    try {
      // The field app's question when a tree is created: the address and every covering polygon.
      answer = await api('/locus/reverse', { location, method });
    } catch (e) {
      report(e);
      return;
    }
    if (seq !== state.reverseSeq) return;
    setStatus('');
    if (state.reverseGroup) state.reverseGroup.remove();
    const group = L.layerGroup().addTo(map);
    state.reverseGroup = group;
    const section = $('#reverse');
    section.dataset.method = method;
    section.dataset.clickLon = latlng.lng.toFixed(7);
    section.dataset.clickLat = latlng.lat.toFixed(7);
    L.circleMarker(latlng, { radius: 5, color: '#000', weight: 2, fillColor: '#fff', fillOpacity: 1, className: 'reverse-click' }).addTo(group);
    let html = '';
    if (answer.address) {
      const a = answer;
      const at = [a.location.y, a.location.x];
      section.dataset.address = a.address;
      section.dataset.lon = String(a.location.x);
      section.dataset.lat = String(a.location.y);
      L.polyline([latlng, at], { color: '#000', weight: 2, dashArray: '4 4', className: 'reverse-line' }).addTo(group);
      L.circleMarker(at, { radius: 7, color: '#000', weight: 2, fillColor: '#ffd700', fillOpacity: 1, className: 'reverse-answer' })
        .bindTooltip(escapeHTML(a.address)).addTo(group);
      html += `<div class="answer">${escapeHTML(a.address)}</div>
        <div class="meta"><span class="match-type">${escapeHTML(a.match_type)}</span> · ${a.distance_m.toFixed(1)} m away · ${escapeHTML(method)}</div>`;
    } else {
      delete section.dataset.address;
      html += '<div class="meta">no address within reach</div>';
    }
    const features = answer.features || [];
    html += `<ul class="features">${features.map((f) => `<li data-layer="${escapeHTML(f.layer)}" data-name="${escapeHTML(f.name)}"><span class="layer">${escapeHTML(f.layer)}:</span> ${escapeHTML(f.name)}</li>`).join('')}</ul>`;
    if (!features.length) html += '<div class="meta">in no polygon</div>';
    section.querySelector('.body').innerHTML = html;
    await highlight(latlng, features, group, seq);
  }

  /// The covering polygons, outlined: each layer's FeatureServer asked which polygons contain
  /// the point, as an ArcGIS client would.
  async function highlight(latlng, features, group, seq) {
    const wanted = new Set(features.map((f) => f.layer));
    const layers = state.layers.filter((l) => wanted.has(l.name));
    const results = await Promise.all(layers.map((layer) => api(`/arcgis/rest/services/${encodeURIComponent(state.info.service_name)}/FeatureServer/${layer.id}/query`, {
      geometry: `${latlng.lng.toFixed(7)},${latlng.lat.toFixed(7)}`, geometryType: 'esriGeometryPoint', inSR: '4326',
      spatialRel: 'esriSpatialRelIntersects', outFields: 'id,name', returnGeometry: 'true',
      maxAllowableOffset: (degreesPerPixel() / 2).toPrecision(3), f: 'geojson',
    }).catch((e) => { report(e); return null; })));
    if (seq !== state.reverseSeq) return;
    for (const data of results) {
      if (!data) continue;
      L.geoJSON(data, { pane: 'highlight', className: 'highlight', interactive: false, style: { color: '#ffb000', weight: 4, fillColor: '#ffd700', fillOpacity: 0.18 } }).addTo(group);
    }
    $('#reverse').dataset.highlighted = String(results.reduce((n, d) => n + (d ? d.features.length : 0), 0));
    $('#reverse').dataset.answered = $('#reverse').dataset.method;
  }

  // MARK: CSV

  $('#csv-file').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    // Cleared, so that opening the same file again (rewritten by a rerun) reads it again.
    e.target.value = '';
    if (file) showCSV(await file.text(), file.name);
  });
  // Anywhere on the page: a file dropped where nothing takes it would have the browser leave
  // the page to show it.
  let dragDepth = 0;
  document.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('#drop-hint').hidden = false; });
  document.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('#drop-hint').hidden = true; } });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', async (e) => {
    e.preventDefault();
    dragDepth = 0;
    $('#drop-hint').hidden = true;
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) showCSV(await file.text(), file.name);
  });

  /// RFC 4180 rows; the delimiter (`,` `;` tab `|`) is the one the header line has most of
  /// outside quotes, as `locus enrich` decides it.
  function parseCSV(text) {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const firstLine = text.split(/\r?\n/, 1)[0];
    let delimiter = ',', best = -1;
    for (const d of [',', ';', '\t', '|']) {
      let n = 0, quoted = false;
      for (const ch of firstLine) { if (ch === '"') quoted = !quoted; else if (ch === d && !quoted) n++; }
      if (n > best) { best = n; delimiter = d; }
    }
    const rows = [];
    let row = [], field = '', quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') { field += '"'; i++; } else { quoted = false; }
        } else {
          field += ch;
        }
      } else if (ch === '"') {
        quoted = true;
      } else if (ch === delimiter) {
        row.push(field); field = '';
      } else if (ch === '\n' || ch === '\r') {
        if (ch === '\r' && text[i + 1] === '\n') i++;
        row.push(field); field = '';
        rows.push(row); row = [];
      } else {
        field += ch;
      }
    }
    if (field !== '' || row.length) { row.push(field); rows.push(row); }
    return rows.filter((r) => r.length > 1 || r[0] !== '');
  }

  function column(header, names) {
    for (const name of names) {
      const i = header.indexOf(name);
      if (i >= 0) return i;
    }
    return -1;
  }

  function showCSV(text, name) {
    const rows = parseCSV(text);
    if (rows.length < 1) { setStatus(`${name}: empty`); return; }
    const header = rows[0].map((h) => h.trim().toLowerCase());
    const body = rows.slice(1);
    const x = column(header, ['longitude', 'lon', 'lng', 'long', 'x']);
    const y = column(header, ['latitude', 'lat', 'y']);
    const status = column(header, ['status']);
    const reason = column(header, ['reason']);
    const matchType = column(header, ['match_type']);
    const score = column(header, ['score']);
    const label = column(header, ['match_addr', 'address', 'full_address', 'street_address']);
    const input = column(header, ['address', 'full_address', 'street_address']);
    const kind = matchType >= 0 ? 'enrich' : 'assign';
    if (x < 0 || y < 0) { setStatus(`${name}: no longitude/latitude columns (an enrich or assign output has them)`); return; }

    if (state.batch) state.batch.group.remove();
    const group = L.featureGroup().addTo(map);
    state.batch = { group, name };
    const failed = [];
    const seen = new Set();
    let drawn = 0, notLonLat = 0;
    body.forEach((r, i) => {
      const lon = parseFloat(r[x]), lat = parseFloat(r[y]);
      if (Number.isFinite(lon) && Number.isFinite(lat) && (Math.abs(lon) > 180 || Math.abs(lat) > 90)) notLonLat++;
      const st = status >= 0 ? (r[status] || '').trim() : '';
      const mt = matchType >= 0 ? (r[matchType] || '').trim() : '';
      const hasPoint = Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
      const bad = ['unmatched', 'failed', 'outside'].includes(st) || !hasPoint;
      if (bad) failed.push({ line: i + 2, row: r, status: st || 'no coordinates', reason: reason >= 0 ? r[reason] : '' });
      if (!hasPoint || drawn >= maxBatchMarkers) return;
      const sc = score >= 0 ? parseFloat(r[score]) : NaN;
      let colour = kind === 'enrich' ? (matchColours[mt] || failedColour) : (statusColours[st] || failedColour);
      if (kind === 'enrich' && st && st !== 'matched') colour = failedColour;
      const key = kind === 'enrich' ? (st && st !== 'matched' ? st : mt || st) : st;
      seen.add(JSON.stringify([key, colour]));
      // The score shows as the fill: solid at 100, faint near the minimum.
      const fill = Number.isFinite(sc) ? 0.25 + 0.7 * Math.max(0, Math.min(1, sc / 100)) : 0.8;
      const title = label >= 0 ? r[label] : `row ${i + 2}`;
      L.circleMarker([lat, lon], { radius: 7, color: '#ffffff', weight: 2, fillColor: colour, fillOpacity: fill, className: 'batch-point' })
        .bindTooltip(`${escapeHTML(title)}<br>${escapeHTML([st, mt, Number.isFinite(sc) ? sc.toFixed(1) : ''].filter(Boolean).join(' · '))}`)
        .addTo(group);
      drawn++;
    });

    const summary = $('#batch-summary');
    summary.dataset.file = name;
    summary.dataset.rows = String(body.length);
    summary.dataset.drawn = String(drawn);
    summary.dataset.failed = String(failed.length);
    summary.textContent = `${name}: ${body.length.toLocaleString()} rows · ${drawn.toLocaleString()} on the map · ${failed.length.toLocaleString()} failed`
      + (drawn >= maxBatchMarkers ? ` (the first ${maxBatchMarkers.toLocaleString()} drawn)` : '');
    $('#batch-legend').innerHTML = [...seen].map((s) => JSON.parse(s)).sort()
      .map(([key, colour]) => `<li><span class="swatch" style="background:${colour}"></span>${escapeHTML(key || '?')}</li>`).join('');
    $('#failed').innerHTML = failed.slice(0, maxListedFailures).map((f) => {
      const what = input >= 0 ? f.row[input] : f.row.join(', ');
      return `<li data-line="${f.line}">line ${f.line}: ${escapeHTML(what)} — <b>${escapeHTML(f.status)}</b>${f.reason ? ': ' + escapeHTML(f.reason) : ''}</li>`;
    }).join('') + (failed.length > maxListedFailures ? `<li>and ${(failed.length - maxListedFailures).toLocaleString()} more</li>` : '');
    if (drawn > 0) map.fitBounds(group.getBounds(), Object.assign({ maxZoom: 18 }, fitPadding));
    setStatus(notLonLat ? `${name}: ${notLonLat.toLocaleString()} rows have coordinates that are not longitude/latitude (written with --out-wkid?): not drawn` : '');
  }

  start();
})();
