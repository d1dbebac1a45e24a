import CLinux
import Glibc
import Synchronization
import WaterSync

/// What an ``EventLoop`` calls when a descriptor it watches is ready. Called on the loop only.
public protocol EventLoopHandler: AnyObject {
    func ready(_ event: EventLoop.Readiness)
}

/// One thread that owns a set of descriptors and everything done with them, in the manner of
/// SwiftNIO's `SelectableEventLoop` and Redis's `ae.c`: epoll directly, no thread wake-up per
/// event.
///
/// A turn: wait in `epoll_wait` until a descriptor is ready, a task arrives or the nearest
/// deadline passes; call ``turnStarted``; run the ready handlers, then the tasks other threads
/// handed in with ``execute(_:)``, then the timers that are due; call ``turnEnded`` (where a
/// server commits and writes its replies); wait again.
///
/// - Important: Everything but ``execute(_:)`` and ``stop()`` belongs to the loop's thread and
///   checks that it runs there (``preconditionInLoop()``): the confinement the unchecked
///   `Sendable` conformance rests on is enforced, not assumed.
public final class EventLoop: @unchecked Sendable {
    /// What was ready about a descriptor.
    public struct Readiness: Sendable {
        public var readable: Bool
        public var writable: Bool
        /// The peer hung up or the descriptor failed: reading will say how.
        public var failed: Bool
    }

    public typealias Token = UInt64

    private let epoll: Int32
    private let wakeup: Int32
    private static let wakeupToken: Token = 0
    /// Work handed in from other threads; the one piece of state not confined to the loop.
    private let tasks = Locked<[@Sendable () -> Void]>([])
    private let isStopping = Atomic<Bool>(false)

    // Confined to the loop's thread:
    private var handlers: [Token: EventLoopHandler] = [:]
    private var nextToken: Token = 1
    private var timers = TimerQueue()
    /// Counts the turns (from 1): what a per-turn budget is reset by.
    public private(set) var turnNumber: UInt64 = 0

    /// Called at the start and at the end of every turn, on the loop.
    public var turnStarted: () -> Void = {}
    public var turnEnded: () -> Void = {}

    public init() throws(SocketError) {
        epoll = CLinux_epoll_create()
        guard epoll >= 0 else { throw SocketError(operation: "epoll_create1", errno: errno) }
        wakeup = CLinux_eventfd()
        // Past this point every property is set: a throw runs deinit, which closes both.
        guard wakeup >= 0 else { throw SocketError(operation: "eventfd", errno: errno) }
        guard CLinux_epoll_control(epoll, 0, wakeup, UInt32(CLinux_EPOLLIN), Self.wakeupToken) == 0 else {
            throw SocketError(operation: "epoll_ctl", errno: errno)
        }
    }

    deinit {
        Glibc.close(epoll)
        if wakeup >= 0 { Glibc.close(wakeup) }
    }

    // MARK: Any thread

    /// Runs `task` on the loop, in its next turn, and wakes it if it waits.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = Glibc.write(wakeup, &one, 8)
    }

    /// Ends ``run()`` after the current turn.
    public func stop() {
        isStopping.store(true, ordering: .releasing)
        execute {}
    }

    /// Whether the caller runs on the loop's thread (asked on every reply: an atomic, no lock).
    public var inLoop: Bool {
        let thread = loopThread.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(thread, pthread_self()) != 0
    }

    /// The thread running ``run()``, or 0.
    private let loopThread = Atomic<pthread_t>(0)

    public func preconditionInLoop(_ file: StaticString = #fileID, line: UInt = #line) {
        precondition(inLoop, "called off the event loop's thread", file: file, line: line)
    }

    // MARK: The loop's thread

    /// Runs turns on the calling thread until ``stop()``.
    public func run() {
        loopThread.store(pthread_self(), ordering: .releasing)
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while !isStopping.load(ordering: .acquiring) {
            let count = CLinux_epoll_wait(epoll, &tokens, &events, 256, timers.millisecondsUntilNext(now: Self.now()))
            guard count >= 0 || errno == EINTR else { preconditionFailure("epoll_wait: errno \(errno)") }
            turnNumber &+= 1
            turnStarted()
            for index in 0..<max(Int(count), 0) {
                if tokens[index] == Self.wakeupToken {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeup, &value, 8)
                    continue
                }
                let flags = events[index]
                handlers[tokens[index]]?.ready(
                    Readiness(
                        readable: flags & UInt32(CLinux_EPOLLIN) != 0, writable: flags & UInt32(CLinux_EPOLLOUT) != 0,
                        failed: flags & UInt32(CLinux_EPOLLERR | CLinux_EPOLLHUP) != 0))
            }
            for task in tasks.withLock({ tasks in
                defer { tasks.removeAll() }; return tasks
            }) { task() }
            for timer in timers.takeDue(now: Self.now()) { timer() }
            turnEnded()
        }
        loopThread.store(0, ordering: .releasing)
    }

    /// Watches `descriptor` for `readable` and `writable`, calling `handler` when ready.
    public func register(_ descriptor: Int32, readable: Bool, writable: Bool, handler: EventLoopHandler)
        throws(SocketError) -> Token
    {
        preconditionInLoop()
        let token = nextToken
        nextToken += 1
        guard CLinux_epoll_control(epoll, 0, descriptor, Self.mask(readable, writable), token) == 0 else {
            throw SocketError(operation: "epoll_ctl", errno: errno)
        }
        handlers[token] = handler
        return token
    }

    /// Changes what `descriptor` is watched for.
    public func modify(_ descriptor: Int32, token: Token, readable: Bool, writable: Bool) {
        preconditionInLoop()
        let result = CLinux_epoll_control(epoll, 1, descriptor, Self.mask(readable, writable), token)
        precondition(result == 0, "epoll_ctl MOD: errno \(errno)")
    }

    /// Stops watching `descriptor` (before it is closed).
    public func deregister(_ descriptor: Int32, token: Token) {
        preconditionInLoop()
        _ = CLinux_epoll_control(epoll, 2, descriptor, 0, token)
        handlers[token] = nil
    }

    /// Runs `action` on the loop once `deadline` (``now()``, in nanoseconds) has passed.
    @discardableResult
    public func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> TimerQueue.ID {
        preconditionInLoop()
        return timers.schedule(at: deadline, action)
    }

    public func cancel(_ timer: TimerQueue.ID) {
        preconditionInLoop()
        timers.cancel(timer)
    }

    /// The monotonic clock the loop's deadlines use, in nanoseconds.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func mask(_ readable: Bool, _ writable: Bool) -> UInt32 {
        (readable ? UInt32(CLinux_EPOLLIN | CLinux_EPOLLRDHUP) : 0) | (writable ? UInt32(CLinux_EPOLLOUT) : 0)
    }
}
