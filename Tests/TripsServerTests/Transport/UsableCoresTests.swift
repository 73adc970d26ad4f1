import Foundation
import Glibc
import Testing

@testable import TripsPlatform

/// The default event loop count follows the CPU affinity, not the machine's core count: pinned
/// to one core (as a benchmark or a container's cpuset pins it), the server runs one loop.
@Suite struct UsableCoresTests {
    typealias SchedSetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer?) -> Int32

    @Test func aThreadPinnedToOneCoreCountsOne() async throws {
        let counted = try await onOwnThread { () throws -> (pinned: Int, online: Int) in
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_setaffinity") else {
                throw TestFailure("no sched_setaffinity")
            }
            let setAffinity = unsafeBitCast(symbol, to: SchedSetAffinity.self)
            var original = [UInt64](repeating: 0, count: 16)
            guard original.withUnsafeMutableBytes({ Linux.calls.schedGetAffinity(0, $0.count, $0.baseAddress) }) == 0 else {
                throw TestFailure("sched_getaffinity: errno \(errno)")
            }
            // Given back before the thread resumes the test: a thread this one starts (the
            // shared pool grows from the thread that wakes it) would inherit the pin.
            defer { _ = original.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress) } }
            var mask = [UInt64](repeating: 0, count: 16)
            mask[0] = 1  // CPU 0 alone
            let result = mask.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress) }
            guard result == 0 else { throw TestFailure("sched_setaffinity: errno \(errno)") }
            return (Linux.usableCores(), Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        }
        #expect(counted.pinned == 1)
        #expect(counted.online >= 1)
    }

    @Test func anUnpinnedProcessCountsAtLeastOneAndAtMostTheOnlineCores() {
        let usable = Linux.usableCores()
        #expect(usable >= 1)
        #expect(usable <= Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
