import Glibc
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

@Suite struct APIStorageFailureTests {
    @Test func aFullDiskRefusesTheChangeWith507AndKeepsServing() async throws {
        try await withStorageFolder { folder in
            let disk = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: disk)
            defer { store.close() }
            let api = try await APIServer(store: store, mode: .live)
            defer { api.stop() }
            let before = try await api.request("GET", "/trips")

            disk.failNext(.write, errno: ENOSPC, partial: true)
            let refused = try await api.request(
                "POST", "/trips", headers: ["Content-Type": "text/plain"], body: "Oslo, Norway: 2 nights from June 1, 2027")
            #expect(refused.status == 507)
            #expect(refused.field("Content-Type") == "application/problem+json")
            #expect(refused.field("Retry-After") == "1")
            #expect(!refused.text.contains(folder) && !refused.text.contains("journal") && !refused.text.contains("errno"))
            let after = try await api.request("GET", "/trips")
            #expect(after.body == before.body)
            #expect(after.field("ETag") == before.field("ETag"))

            disk.failNext(.synchronizeData, errno: EIO)
            let failedSync = try await api.json("POST", "/trips/reorder", #"{"sources": [3], "destination": "end"}"#)
            #expect(failedSync.status == 503)
            #expect(!failedSync.text.contains(folder) && !failedSync.text.contains("Input/output"))
            #expect(api.order == [1, 2, 3, 4, 5, 6])

            let accepted = try await api.request(
                "POST", "/trips", headers: ["Content-Type": "text/plain"], body: "Oslo, Norway: 2 nights from June 1, 2027")
            #expect(accepted.status == 201)
            #expect(accepted.field("Location") == "/trips/7")
        }
    }
}
