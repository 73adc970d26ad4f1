import Glibc

/// epoll, eventfd and accept4, which the Glibc module does not import (they need _GNU_SOURCE or
/// headers outside it): looked up once with dlsym and called through C function pointers.
struct Linux: @unchecked Sendable {  // immutable C function pointers
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32

    let epollCreate1: EpollCreate1
    let epollCtl: EpollCtl
    let epollWait: EpollWait
    let eventFD: EventFD
    let accept4: Accept4

    static let calls = Linux()

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
    }

    static let epollIn: UInt32 = 0x001
    static let epollOut: UInt32 = 0x004
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollRdHup: UInt32 = 0x2000
    /// Wake one of the epoll sets that watch a shared descriptor, not all of them (Linux 4.5).
    static let epollExclusive: UInt32 = 1 << 28
    static let epollEdgeTriggered: UInt32 = 1 << 31
    static let epollCtlAdd: Int32 = 1
    static let epollCtlDel: Int32 = 2
    static let closeOnExec: Int32 = 0o2_000_000
    static let nonBlocking: Int32 = 0o4_000

    /// `struct epoll_event` is packed on x86-64 (12 bytes) and naturally aligned elsewhere (16).
    #if arch(x86_64)
    static let epollEventStride = 12
    static let epollDataOffset = 4
    #else
    static let epollEventStride = 16
    static let epollDataOffset = 8
    #endif

    /// Adds `descriptor` to `epoll` with `events`, tagged with `data`.
    static func epollAdd(_ epoll: Int32, _ descriptor: Int32, events: UInt32, data: UInt64) throws(SystemError) {
        var storage: (UInt64, UInt64) = (0, 0)
        let result = withUnsafeMutableBytes(of: &storage) { buffer in
            buffer.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: data, toByteOffset: epollDataOffset, as: UInt64.self)
            return calls.epollCtl(epoll, epollCtlAdd, descriptor, buffer.baseAddress)
        }
        if result < 0 { throw SystemError(call: "epoll_ctl", errno: errno) }
    }

    static func epollRemove(_ epoll: Int32, _ descriptor: Int32) {
        var storage: (UInt64, UInt64) = (0, 0)
        _ = withUnsafeMutableBytes(of: &storage) { calls.epollCtl(epoll, epollCtlDel, descriptor, $0.baseAddress) }
    }
}

extension Linux {
    /// Gives the calling thread a nicer scheduling priority (0 to 19, higher yields more): on
    /// Linux the nice value is per thread, and `setpriority` with `who == 0` sets the caller's.
    /// Background work (a compaction) then takes the CPU the request path leaves, as RocksDB
    /// lowers its compaction threads. Failure is harmless: the thread just keeps its priority.
    static func lowerCurrentThreadPriority(to nice: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }
}
