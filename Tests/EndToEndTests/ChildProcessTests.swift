import Glibc
import Testing
import WaterTestSupport

@Suite("ChildProcess")
struct ChildProcessTests {
    @Test("a child starts with no signal blocked, whatever the spawning thread blocks")
    func childStartsWithNoSignalBlocked() throws {
        // posix_spawn copies the calling thread's mask; block SIGTERM here as the server's own
        // main thread does, spawn, and put the mask back before anything else runs here.
        var terminate = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &terminate, &previous)
        let result = Result { try ChildProcess.run("/bin/grep", ["^SigBlk:", "/proc/self/status"]) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let status = try result.get()
        #expect(status.status == 0)
        #expect(status.output == "SigBlk:\t0000000000000000\n")
    }
}
