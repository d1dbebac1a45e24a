import Dispatch

/// A non-blocking connected socket driven by Dispatch read and write sources: no thread of
/// its own, no blocking call. Bytes that arrive go to `onBytes`; ``send(_:)`` queues bytes and
/// writes them as the socket accepts them.
///
/// - Important: Every method must be called on `queue`, and every callback runs there. That
///   confinement is what makes the unchecked `Sendable` conformance sound.
public final class SocketChannel: @unchecked Sendable {
    /// Reading stops while this much is waiting to be written: a peer that does not read its
    /// replies cannot make the server buffer without bound.
    public static let maximumPendingOutput = 4 << 20
    private static let readChunk = 64 * 1024

    public let socket: Socket
    public let queue: DispatchQueue
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var isWriteSourceRunning = false
    private var isReadSuspended = false
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var closeWhenFlushed = false
    private var isClosed = false
    private var onBytes: (ArraySlice<UInt8>) -> Void = { _ in }
    private var onClose: (SocketError?) -> Void = { _ in }
    private var buffer = [UInt8](repeating: 0, count: SocketChannel.readChunk)

    public init(socket: Socket, queue: DispatchQueue) {
        self.socket = socket
        self.queue = queue
    }

    /// Starts reading. `onClose` runs once: with nil when the peer closed, with the error when
    /// the connection failed, and also after ``close(flushingFirst:)``.
    public func start(onBytes: @escaping (ArraySlice<UInt8>) -> Void, onClose: @escaping (SocketError?) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.onBytes = onBytes
        self.onClose = onClose
        let readSource = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        readSource.setEventHandler { [unowned self] in readAvailable() }
        let writeSource = DispatchSource.makeWriteSource(fileDescriptor: socket.descriptor, queue: queue)
        writeSource.setEventHandler { [unowned self] in flush() }
        // The descriptor is closed once both sources are cancelled, never while one may fire.
        let group = DispatchGroup()
        group.enter()
        group.enter()
        readSource.setCancelHandler { group.leave() }
        writeSource.setCancelHandler { group.leave() }
        let socket = self.socket
        group.notify(queue: queue) { socket.close() }
        self.readSource = readSource
        self.writeSource = writeSource
        readSource.activate()
        writeSource.activate()
        writeSource.suspend()
    }

    /// Bytes waiting to be written.
    public var pendingOutput: Int { output.count - outputOffset }

    /// Queues `bytes` and writes as much as the socket takes now.
    public func send(_ bytes: [UInt8]) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        output += bytes
        flush()
    }

    /// Closes the connection; with `flushingFirst`, after the queued bytes are written.
    public func close(flushingFirst: Bool = false) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isClosed else { return }
        if flushingFirst && pendingOutput > 0 {
            closeWhenFlushed = true
            stopReading()
            return
        }
        finish(nil)
    }

    private func readAvailable() {
        var total = 0
        // Read a bounded amount per event, so one busy peer cannot starve the others.
        while !isClosed, !isReadSuspended, total < 4 * Self.readChunk {
            let count: Int?
            switch buffer.withUnsafeMutableBytes({ raw in Result { () throws(SocketError) in try socket.read(into: raw) } }) {
            case .success(let read): count = read
            case .failure(let error):
                finish(error)
                return
            }
            guard let count else { return }  // nothing more for now
            if count == 0 {
                finish(nil)
                return
            }
            total += count
            onBytes(buffer[0..<count])
            // A short read drained the socket: skip the read that would only say EAGAIN; the
            // source fires again when more arrives.
            if count < buffer.count { return }
        }
    }

    private func flush() {
        guard !isClosed else { return }
        while pendingOutput > 0 {
            let offset = outputOffset
            let result = output.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            guard case .success(let written) = result else {
                if case .failure(let error) = result { finish(error) }
                return
            }
            if written == 0 { break }
            outputOffset += written
        }
        if pendingOutput == 0 {
            output.removeAll(keepingCapacity: output.count < 1 << 20)
            outputOffset = 0
            if closeWhenFlushed {
                finish(nil)
                return
            }
        } else if outputOffset > 1 << 20 {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
        setWriteSourceRunning(pendingOutput > 0)
        if pendingOutput > Self.maximumPendingOutput {
            stopReading()
        } else if isReadSuspended, !closeWhenFlushed {
            isReadSuspended = false
            readSource?.resume()
        }
    }

    private func setWriteSourceRunning(_ running: Bool) {
        guard running != isWriteSourceRunning, let writeSource else { return }
        isWriteSourceRunning = running
        if running { writeSource.resume() } else { writeSource.suspend() }
    }

    private func stopReading() {
        guard !isReadSuspended else { return }
        isReadSuspended = true
        readSource?.suspend()
    }

    private func finish(_ error: SocketError?) {
        guard !isClosed else { return }
        isClosed = true
        // A suspended source must be resumed before it can be cancelled.
        if isReadSuspended { readSource?.resume() }
        if !isWriteSourceRunning { writeSource?.resume() }
        readSource?.cancel()
        writeSource?.cancel()
        onClose(error)
        onBytes = { _ in }
        onClose = { _ in }
    }
}
