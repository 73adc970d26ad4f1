// Teaches ThreadSanitizer the slow paths of Synchronization.Mutex on Linux.
//
// Why: `Mutex.withLock` inlines its fast paths (a compare-exchange with acquire/release
// ordering), which TSan instruments and understands. Under contention, though, the lock
// changes hands inside `_MutexHandle._lockSlow` / `_unlockSlow`: a spin with plain atomics
// and a FUTEX_LOCK_PI / FUTEX_UNLOCK_PI handoff, all in libswiftSynchronization.so, which
// is not instrumented. TSan never sees that release -> acquire edge, so two critical
// sections on different threads look like a data race ("Swift access race" with both
// stacks inside a `withLock` closure). A five-line program with four threads appending
// to an array under one Mutex reproduces it on Swift 6.3.1.
//
// Rather than suppress every report that touches code run under a lock (which would hide
// real races in the store), this library is LD_PRELOADed into the TSan test run and
// interposes the two slow-path functions: after the real `_lockSlow` returns it tells TSan
// "acquire" on the lock word, before the real `_unlockSlow` it says "release" — the same
// address the instrumented fast paths synchronize on. A genuine race (an access outside
// the lock) is still reported. In a process without TSan the hooks are null and it only
// forwards. Built and used by scripts/checks/sanitizers.sh.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

// borrowing self (the address-only `_MutexHandle`) travels by address in the swiftself
// register, which clang's `swift_context` parameter ABI maps to.
typedef __attribute__((swiftcall)) void (*LockSlow)(uint32_t, void *__attribute__((swift_context)));
typedef __attribute__((swiftcall)) void (*UnlockSlow)(void *__attribute__((swift_context)));

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

__attribute__((swiftcall)) void $s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF(
    uint32_t threadID, void *__attribute__((swift_context)) handle) {
    static LockSlow real;
    if (!real) real = (LockSlow)dlsym(RTLD_NEXT, LOCK_SLOW);
    real(threadID, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

__attribute__((swiftcall)) void $s15Synchronization12_MutexHandleV11_unlockSlowyyF(
    void *__attribute__((swift_context)) handle) {
    static UnlockSlow real;
    if (!real) real = (UnlockSlow)dlsym(RTLD_NEXT, UNLOCK_SLOW);
    if (__tsan_release) __tsan_release(handle);
    real(handle);
}
