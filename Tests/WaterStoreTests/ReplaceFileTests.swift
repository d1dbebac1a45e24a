import Glibc
import Testing
import WaterSystem
import WaterTestSupport

/// The one way every program writes a file whole (`FileSystem.replaceFile`): on the real disk,
/// and when a write, a sync or the rename fails, the old file stays and no temporary is left.
@Suite("Replacing a file whole")
struct ReplaceFileTests {
    private let directory = temporaryDirectory()

    private func names() throws -> [String] { try PosixFileSystem().listDirectory(directory).sorted() }

    @Test func aFileIsReplacedThroughItsTemporaryAndNothingElseIsLeft() throws {
        let path = "\(directory)/settings"
        try PosixFileSystem().replaceFile(path, with: Array("one".utf8), mode: 0o600)
        try PosixFileSystem().replaceFile(
            path, with: Array("two".utf8), mode: 0o600, temporary: "\(path).tmp-mine", syncing: false)
        #expect(try PosixFileSystem().readFile(path, limit: 64) == Array("two".utf8))
        #expect(try names() == ["settings"])
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    @Test(arguments: FaultInjectingFileSystem.Operation.allCases.filter { $0 != .read })
    func aFailedStepKeepsTheOldFileAndRemovesTheTemporary(_ failing: FaultInjectingFileSystem.Operation) throws {
        let path = "\(directory)/settings-\(failing)"
        let disk = FaultInjectingFileSystem(base: PosixFileSystem())
        try disk.replaceFile(path, with: Array("old".utf8), mode: 0o600)
        disk.failStarting(at: 1, of: failing, errno: ENOSPC)
        let error = #expect(throws: FileSystemError.self) {
            try disk.replaceFile(path, with: Array("new".utf8), mode: 0o600)
        }
        #expect(error?.errno == ENOSPC)
        #expect(try PosixFileSystem().readFile(path, limit: 64) == Array("old".utf8))
        #expect(try names().filter { $0.hasPrefix("settings-\(failing)") } == ["settings-\(failing)"])
    }
}
