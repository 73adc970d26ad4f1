import Foundation
import Glibc
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPlatform
@testable import TripsServer
@testable import TripsStore

/// The data folder is the server's user's alone: made 0700 with files 0600, never written
/// through a symbolic link, and refused when someone else could change it.
@Suite struct DataFolderSecurityTests {
    private static func permissions(_ path: String) throws -> UInt32 {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError(call: "lstat", errno: errno) }
        return info.st_mode & 0o7777
    }

    /// A file's bytes, read with Glibc: Foundation's `Data(contentsOf:)` leaks its read buffer
    /// for an empty file (the lock), which fails the AddressSanitizer stage.
    private static func contents(of path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(call: "open", errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count >= 0 else { throw SystemError(call: "read", errno: errno) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    private static func isSymbolicLink(_ path: String) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError(call: "lstat", errno: errno) }
        return info.st_mode & S_IFMT == S_IFLNK
    }

    @Test func aNewFolderAndEveryFileInItAreTheOwnersAlone() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            try await store.commit(.add(storageDraft("Lisbon")))
            let photo = examplePhotoBytes(1)
            try await store.setPhoto(2, photo)
            store.close()
            #expect(try Self.permissions(folder) == 0o700)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(names == ["journal-0000000001", "lock", "photos", "snapshot"])
            for name in names where name != "photos" {
                #expect(try Self.permissions(folder + "/" + name) == 0o600, "\(name)")
            }
            #expect(try Self.permissions(folder + "/photos") == 0o700)
            let photoNames = try FileManager.default.contentsOfDirectory(atPath: folder + "/photos")
            #expect(photoNames.contains(photo.photo.digest) && photoNames.count > 1)  // the samples' photos too
            for name in photoNames { #expect(try Self.permissions(folder + "/photos/" + name) == 0o600, "\(name)") }
        }
    }

    /// Someone who can write where the server reads would point a link at another file: the
    /// server must refuse it, and neither read nor change what it points to.
    @Test(arguments: ["snapshot", "journal-0000000001", "lock"])
    func aSymbolicLinkInPlaceOfAFileIsRefusedNotFollowed(name: String) async throws {
        try await withStorageFolder { folder in
            try TripStore.open(folder, samples: true).close()
            let target = folder + ".outside-" + name
            defer { try? FileManager.default.removeItem(atPath: target) }
            try FileManager.default.moveItem(atPath: folder + "/" + name, toPath: target)
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: target)
            let before = try Self.contents(of: target)

            let error = #expect(throws: StorageError.self) { try TripStore.open(folder) }
            guard case .io(_, let path, ELOOP)? = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(path == folder + "/" + name)
            #expect("\(error!)".contains("symbolic link"))
            #expect(try Self.contents(of: target) == before)
        }
    }

    /// A link planted as `snapshot.tmp` while the server runs would have the next
    /// compaction empty and overwrite its target (`O_TRUNC` followed it): now the link is
    /// removed and a new file made in its place (`O_EXCL`).
    @Test func aSnapshotTemporaryThatLinksElsewhereIsReplacedNotWrittenThrough() async throws {
        try await withStorageFolder { folder in
            try PosixFileSystem().createDirectory(folder)
            let victim = folder + ".victim"
            defer { try? FileManager.default.removeItem(atPath: victim) }
            try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
            let data = DataFolder(path: folder)
            try FileManager.default.createSymbolicLink(atPath: data.snapshotTemporary, withDestinationPath: victim)

            _ = try Compaction.installSnapshot(Snapshot(list: .samples, journal: 1), folder: data, fileSystem: PosixFileSystem())

            #expect(try Self.contents(of: victim) == Array("precious".utf8))
            #expect(try !Self.isSymbolicLink(data.snapshot))
            #expect(try Self.permissions(data.snapshot) == 0o600)
            #expect(!FileManager.default.fileExists(atPath: data.snapshotTemporary))
        }
    }

    @Test(arguments: [0o770 as UInt32, 0o720, 0o702, 0o777])
    func aFolderWritableByGroupOrOthersIsRefused(mode: UInt32) async throws {
        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            chmod(folder, mode)
            #expect(throws: StorageError.folderWritableByOthers(folder: folder, permissions: mode)) { try TripStore.open(folder) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing was created in it")
        }
    }

    @Test func aFolderOfAnotherUserIsRefused() async {
        await withStorageFolder { folder in
            let files = FaultyFileSystem()
            files.reportOwner(geteuid() + 1)
            #expect(throws: StorageError.folderOwnedByAnotherUser(folder: folder, owner: geteuid() + 1, user: geteuid())) {
                try TripStore.open(folder, fileSystem: files)
            }
        }
    }

    /// A folder an older server made (0755) is still used, with a warning to close it.
    @Test func aFolderOthersCanReadIsUsedWithAWarning() async throws {
        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            chmod(folder, 0o755)
            let log = CollectingLog()
            try TripStore.open(folder, log: log).close()
            #expect(log.warnings.contains { $0.contains("can be read by other users (mode 755): chmod 700 \(folder)") })
        }
    }

    @Test(.tags(.live)) func tripsServerExitsWith2AndSaysWhyOnAGroupWritableFolder() async throws {
        let executable = try tripsServerExecutable()
        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            chmod(folder, 0o775)
            let (exit, errors) = try await onOwnThread {
                let server = try ChildServer(executable: executable, folder: folder)
                let exit = server.waitForExit()
                _ = server.errors.waitForEnd(timeout: .seconds(5))
                return (exit?.status, server.errors.text)
            }
            #expect(exit == 2)
            #expect(errors.contains("the data folder \(folder) is writable by other users (mode 775)"), "\(errors)")
        }
    }
}
