import Glibc

/// epoll, eventfd and accept4, which the Glibc module does not import (they need _GNU_SOURCE or
/// headers outside it): looked up once with dlsym and called through C function pointers.
package struct Linux: @unchecked Sendable {  // immutable C function pointers
    package typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    package typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    package typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    package typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    package typealias SchedGetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
    package typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32
    package typealias MallocTrim = @convention(c) (Int) -> Int32

    package let epollCreate1: EpollCreate1
    package let epollCtl: EpollCtl
    package let epollWait: EpollWait
    package let eventFD: EventFD
    package let accept4: Accept4
    package let schedGetAffinity: SchedGetAffinity
    /// Glibc's `malloc_trim` (in `malloc.h`, which the Glibc module leaves out); nil under
    /// AddressSanitizer, whose allocator takes `malloc`'s place: Glibc's trim then walks arenas
    /// Glibc never set up, and crashed a sanitizer run (SEGV in `mtrim`).
    package let mallocTrim: MallocTrim?

    package static let calls = Linux()

    private init() {
        let handle = dlopen(nil, RTLD_NOW)
        func load<Function>(_ name: String, as type: Function.Type) -> Function {
            guard let symbol = dlsym(handle, name) else { fatalError("the C library has no \(name)") }
            return unsafeBitCast(symbol, to: type)
        }
        epollCreate1 = load("epoll_create1", as: EpollCreate1.self)
        epollCtl = load("epoll_ctl", as: EpollCtl.self)
        epollWait = load("epoll_wait", as: EpollWait.self)
        eventFD = load("eventfd", as: EventFD.self)
        accept4 = load("accept4", as: Accept4.self)
        schedGetAffinity = load("sched_getaffinity", as: SchedGetAffinity.self)
        mallocTrim = dlsym(handle, "__asan_init") == nil ? load("malloc_trim", as: MallocTrim.self) : nil
    }

    /// Gives the memory `free` kept back to the system (`malloc_trim(0)`: every arena, and
    /// the free pages inside them, not only at their tops). After a burst of short-lived
    /// allocations, such as reading a long list at start-up, Glibc keeps the freed pages for
    /// later allocations, and they stay resident: 78 MiB of them after a million trips.
    package static func returnFreedMemory() {
        _ = calls.mallocTrim?(0)
    }

    package static let epollIn: UInt32 = 0x001
    package static let epollOut: UInt32 = 0x004
    package static let epollErr: UInt32 = 0x008
    package static let epollHup: UInt32 = 0x010
    package static let epollRdHup: UInt32 = 0x2000
    /// Wake one of the epoll sets that watch a shared descriptor, not all of them (Linux 4.5).
    package static let epollExclusive: UInt32 = 1 << 28
    package static let epollEdgeTriggered: UInt32 = 1 << 31
    package static let epollCtlAdd: Int32 = 1
    package static let epollCtlDel: Int32 = 2
    package static let closeOnExec: Int32 = 0o2_000_000
    package static let nonBlocking: Int32 = 0o4_000

    /// `struct epoll_event` is packed on x86-64 (12 bytes) and naturally aligned elsewhere (16).
    #if arch(x86_64)
    package static let epollEventStride = 12
    package static let epollDataOffset = 4
    #else
    package static let epollEventStride = 16
    package static let epollDataOffset = 8
    #endif

    /// Adds `descriptor` to `epoll` with `events`, tagged with `data`.
    package static func epollAdd(_ epoll: Int32, _ descriptor: Int32, events: UInt32, data: UInt64) throws(SystemError) {
        var storage: (UInt64, UInt64) = (0, 0)
        let result = withUnsafeMutableBytes(of: &storage) { buffer in
            buffer.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: data, toByteOffset: epollDataOffset, as: UInt64.self)
            return calls.epollCtl(epoll, epollCtlAdd, descriptor, buffer.baseAddress)
        }
        if result < 0 { throw SystemError(call: "epoll_ctl", errno: errno) }
    }

    package static func epollRemove(_ epoll: Int32, _ descriptor: Int32) {
        var storage: (UInt64, UInt64) = (0, 0)
        _ = withUnsafeMutableBytes(of: &storage) { calls.epollCtl(epoll, epollCtlDel, descriptor, $0.baseAddress) }
    }
}

extension Linux {
    /// The cores the calling thread may run on: its affinity mask's, which `taskset`, a
    /// container's cpuset or a benchmark's pinning narrow, falling back to the online cores.
    /// One event loop per core the process may use, as nginx's `worker_processes auto` counts:
    /// two loops taking turns on one core only add context switches.
    package static func usableCores() -> Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var mask = [UInt64](repeating: 0, count: 16)  // 1,024 CPUs, glibc's cpu_set_t
        let result = mask.withUnsafeMutableBytes { calls.schedGetAffinity(0, $0.count, $0.baseAddress) }
        guard result == 0 else { return online }
        let allowed = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        return allowed > 0 ? allowed : online
    }

    /// Gives the calling thread a nicer scheduling priority (0 to 19, higher yields more): on
    /// Linux the nice value is per thread, and `setpriority` with `who == 0` sets the caller's.
    /// Background work (a compaction) then takes the CPU the request path leaves, as RocksDB
    /// lowers its compaction threads. Failure is harmless: the thread just keeps its priority.
    package static func lowerCurrentThreadPriority(to nice: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }
}
