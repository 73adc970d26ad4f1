import Glibc
import TripsDomain

/// The data folder's `photos` folder: each photo's bytes in a file named by their SHA-256,
/// so two trips with the same photo share one file.
///
/// A photo's file is made durable before the journal record that names it: written to
/// `<sha256>.tmp` (created, never opened through a name someone else made), `fsync`ed, renamed,
/// and the folder `fsync`ed. A crash before the record leaves a file no trip refers to, which
/// start-up removes; a record is never on disk without its file. A file no trip refers to any
/// more is removed once a compaction made a new snapshot (`removeUnreferenced`), and at start-up.
///
/// The writer thread owns it, inside `DiskStore`; reads go to the files directly (`read`).
struct PhotoFiles: Sendable {
    let folder: DataFolder
    let fileSystem: any FileSystem
    let log: any StorageLog
    /// The digests whose files are whole and durable in the folder.
    private(set) var stored: Set<String> = []

    init(folder: DataFolder, fileSystem: any FileSystem, log: any StorageLog) {
        self.folder = folder
        self.fileSystem = fileSystem
        self.log = log
    }

    /// Opens the folder at start-up, before the list is recovered (a new data folder's first
    /// snapshot names the sample trips' photos, written here first): creates it when missing
    /// (`folderNames` are the data folder's), and refuses it when others could change it.
    func open(folderNames: [String]) throws(StorageError) {
        try fileSystem.createDirectory(folder.photos)
        if !folderNames.contains("photos") { try fileSystem.synchronizeDirectory(folder.path) }
        try folder.checkIsPrivate(fileSystem.status(folder.photos), user: geteuid())
    }

    /// Tidies the opened folder for the list recovered, `list`: removes what a crash left
    /// (temporary files) and the photos no trip refers to.
    ///
    /// - Throws: `.corrupt` when a trip's photo has no file. The write order makes that
    ///   impossible, so the folder was changed by someone else: the server refuses to start
    ///   rather than serve a list that names bytes it lacks.
    mutating func recover(for list: TripList) throws(StorageError) {
        var removed = 0
        for name in try fileSystem.contentsOfDirectory(folder.photos) {
            guard let (digest, isTemporary) = DataFolder.photoName(name) else {
                log.warning("\(folder.photos)/\(name) is not a photo this server wrote; leaving it alone")
                continue
            }
            if !isTemporary, list.photos[digest] != nil {
                stored.insert(digest)
                continue
            }
            try fileSystem.removeFile(folder.photos + "/" + name)
            removed += 1
        }
        if removed > 0 {
            try fileSystem.synchronizeDirectory(folder.photos)
            log.info("removed \(removed) photo file\(removed == 1 ? "" : "s") no trip refers to (or a crash left half written)")
        }
        if let missing = list.photos.digests.subtracting(stored).min() {
            let trip = list.trips.first { $0.photo?.digest == missing }.map { "trip \($0.id)" } ?? "a trip"
            throw .corrupt(file: folder.photo(missing), offset: 0, reason: "\(trip) has this photo, and its file is missing")
        }
    }

    /// Makes the files of `photos` durable, those not stored already, each once: written under
    /// a temporary name, synced and renamed, then the folder synced once for all. The records
    /// that name them may be written once this returns.
    mutating func write(_ photos: [PhotoBytes]) throws(StorageError) {
        var written = Set<String>()
        for photo in photos {
            let digest = photo.photo.digest
            guard !stored.contains(digest), written.insert(digest).inserted else { continue }
            let temporary = folder.photoTemporary(digest)
            // A stale one (a failed write, or a link planted there) goes first.
            try fileSystem.removeFile(temporary)
            let file = try fileSystem.open(temporary, mode: .createNew)
            do {
                try fileSystem.write(file, photo.bytes)
                try fileSystem.synchronize(file)
            } catch {
                try? fileSystem.close(file)  // already failing; the error below says why
                try? fileSystem.removeFile(temporary)
                throw error
            }
            do {
                try fileSystem.close(file)
                try fileSystem.rename(temporary, to: folder.photo(digest))
            } catch {
                try? fileSystem.removeFile(temporary)
                throw error
            }
        }
        guard !written.isEmpty else { return }
        try fileSystem.synchronizeDirectory(folder.photos)
        stored.formUnion(written)
    }

    /// Removes the files of the photos `photos` (the durable list's) does not hold. Call it
    /// only while every record on disk is in that list: then no record needs them, and a
    /// change that sets one of them again brings its bytes and writes the file anew.
    mutating func removeUnreferenced(keeping photos: TripPhotoIndex) {
        let unreferenced = stored.filter { photos[$0] == nil }
        guard !unreferenced.isEmpty else { return }
        for digest in unreferenced {
            do {
                try fileSystem.removeFile(folder.photo(digest))
                stored.remove(digest)
            } catch {
                log.warning("cannot remove \(folder.photo(digest)), a photo no trip refers to: \(error)")
            }
        }
        do {
            try fileSystem.synchronizeDirectory(folder.photos)
        } catch {
            log.warning("syncing \(folder.photos) after removing photos failed; start-up removes any that come back: \(error)")
        }
    }

    /// The bytes of `photo`, read from its file; nil when the file is gone (a removal after the
    /// last trip let the photo go, racing this read).
    ///
    /// - Throws: `.corrupt` when the file's length is not the photo's; `.io` when it cannot be read.
    static func read(_ photo: TripPhoto, folder: DataFolder, fileSystem: any FileSystem) throws(StorageError) -> PhotoBytes? {
        let path = folder.photo(photo.digest)
        guard let bytes = try fileSystem.readFile(path) else { return nil }
        guard bytes.count == photo.byteCount else {
            throw .corrupt(file: path, offset: 0, reason: "it holds \(bytes.count) bytes, and the photo \(photo.byteCount)")
        }
        return PhotoBytes(photo: photo, bytes: bytes)
    }
}
