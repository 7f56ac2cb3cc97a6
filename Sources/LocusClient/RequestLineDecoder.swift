import NIOCore

/// One line read from a connection: its bytes without the terminator, or the news that a line
/// ran past the limit.
public enum RequestLine: Sendable, Equatable {
    case line(ByteBuffer)
    /// The line was longer than the limit. What follows cannot be told apart from the rest of
    /// this line, so the connection answers and closes.
    case tooLong
}

/// Splits the byte stream into lines at `\n` (a `\r` before it is dropped), never buffering more
/// than `maximumLineBytes` of one line.
///
/// Unlike `ByteToMessageHandler(maximumBufferSize:)`, which fails the channel with an error, this
/// emits `.tooLong` so the connection can say `too_large` before it closes.
public struct RequestLineDecoder: ByteToMessageDecoder {
    public typealias InboundOut = RequestLine

    public let maximumLineBytes: Int
    /// Bytes already searched for a newline, so a long line is scanned once, not once per read.
    private var searched = 0
    private var overflowed = false

    public init(maximumLineBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if overflowed {
            // Everything after an over-long line is dropped; the handler is closing the channel.
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        let view = buffer.readableBytesView
        guard let newline = view.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) else {
            searched = view.count
            // One byte of slack: a `\r` may still end this line.
            if searched > maximumLineBytes + 1 { overflow(context: context, buffer: &buffer) }
            return .needMoreData
        }
        searched = 0
        var length = newline - view.startIndex
        let consumed = length + 1
        if length > 0, view[newline - 1] == UInt8(ascii: "\r") { length -= 1 }
        guard length <= maximumLineBytes else {
            overflow(context: context, buffer: &buffer)
            return .needMoreData
        }
        let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
        buffer.moveReaderIndex(forwardBy: consumed)
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    private mutating func overflow(context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        overflowed = true
        buffer.moveReaderIndex(to: buffer.writerIndex)
        context.fireChannelRead(wrapInboundOut(.tooLong))
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without its newline is still a request: clients that write one request and
        // half-close expect an answer.
        if !overflowed, buffer.readableBytes > 0 {
            var length = buffer.readableBytes
            if buffer.readableBytesView.last == UInt8(ascii: "\r") { length -= 1 }
            let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
            buffer.moveReaderIndex(to: buffer.writerIndex)
            if line.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.line(line))) }
        }
        return .needMoreData
    }
}
