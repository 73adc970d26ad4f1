// io_uring's rings, shared with the kernel: set up, filled and read here, in C, because the
// ring's head and tail are loaded and stored with acquire and release ordering in memory the
// kernel maps in, which Swift's atomics (owned storage only) cannot address, and because the
// entries' layout comes from the kernel's own header. Nothing else: the event loop that uses
// it is Swift (TripsHTTP's `UringEventLoop`), the system calls go through `syscall(2)`, and no
// library (liburing) is needed.
#ifndef TRIPS_IO_URING_H
#define TRIPS_IO_URING_H

#include <stddef.h>
#include <stdint.h>

/// One ring: the submission and completion queues mapped from the kernel, and one group of
/// receive buffers the kernel picks from (a provided-buffer ring), so that a connection that
/// waits for bytes holds no buffer of its own.
typedef struct trips_io_uring {
    int descriptor;
    unsigned submission_entries;
    unsigned *_Nonnull submission_head;
    unsigned *_Nonnull submission_tail;
    unsigned submission_mask;
    void *_Nonnull submission_entries_memory;
    /// Entries filled but not yet handed to the kernel.
    unsigned local_tail;
    unsigned *_Nonnull completion_head;
    unsigned *_Nonnull completion_tail;
    unsigned completion_mask;
    void *_Nonnull completions;
    void *_Nonnull submission_map;
    size_t submission_map_size;
    void *_Nonnull completion_map;
    size_t completion_map_size;
    size_t entries_map_size;
    void *_Nullable buffer_ring;
    size_t buffer_ring_size;
    unsigned char *_Nullable buffer_memory;
    unsigned buffer_count;
    unsigned buffer_size;
    uint16_t buffer_tail;
} trips_io_uring;

/// One completion, copied out of the ring.
typedef struct trips_io_uring_completion {
    uint64_t user_data;
    int32_t result;
    uint32_t flags;
} trips_io_uring_completion;

/// Sets up a ring of `entries` submissions, disabled until `trips_io_uring_enable` is called
/// on the thread that will submit (the only one that may, which lets the kernel run the
/// completions' work on that thread when it waits), and `buffer_count` receive buffers of
/// `buffer_size` bytes in buffer group 0. Returns 0, or -errno with `*failed_call` naming the
/// call that failed (`io_uring_setup`, `mmap`, `io_uring_register`), nothing left open.
int trips_io_uring_open(
    trips_io_uring *_Nonnull ring, unsigned entries, unsigned buffer_count, unsigned buffer_size,
    const char *_Nullable *_Nonnull failed_call);
/// Lets the calling thread submit. Returns 0 or -errno.
int trips_io_uring_enable(trips_io_uring *_Nonnull ring);
void trips_io_uring_close(trips_io_uring *_Nonnull ring);

/// Submits what was prepared and waits until `wait_for` completions are ready or `timeout_ns`
/// passed (negative: no limit). Returns the number submitted, or -errno (-ETIME: timed out).
int trips_io_uring_enter(trips_io_uring *_Nonnull ring, unsigned wait_for, int64_t timeout_ns);
/// Copies up to `capacity` ready completions into `out` and frees their slots; returns how many.
unsigned trips_io_uring_take(trips_io_uring *_Nonnull ring, trips_io_uring_completion *_Nonnull out, unsigned capacity);
/// Whether no submission slot is free (submit with `trips_io_uring_enter` first).
int trips_io_uring_is_full(const trips_io_uring *_Nonnull ring);

// Submissions: each fills the next free slot (the caller checked it is not full).
/// Accepts connections on `listener` until canceled or refused, each one completion.
void trips_io_uring_accept(trips_io_uring *_Nonnull ring, int listener, uint64_t user_data);
/// Receives into a buffer of group 0, the kernel's choice (see `trips_io_uring_buffer_id`).
void trips_io_uring_receive(trips_io_uring *_Nonnull ring, int descriptor, uint64_t user_data);
/// Sends `count` bytes at `bytes`, which must stay unchanged until the completion.
void trips_io_uring_send(
    trips_io_uring *_Nonnull ring, int descriptor, const void *_Nonnull bytes, size_t count, uint64_t user_data);
/// Completes each time `descriptor` becomes readable, until canceled.
void trips_io_uring_poll_readable(trips_io_uring *_Nonnull ring, int descriptor, uint64_t user_data);
/// Cancels every submission still in flight on `descriptor`.
void trips_io_uring_cancel_descriptor(trips_io_uring *_Nonnull ring, int descriptor, uint64_t user_data);

// Receive buffers.
/// The buffer a receive's completion used, or -1 if it used none.
int trips_io_uring_buffer_id(uint32_t flags);
/// Whether more completions will come for the submission (a multishot one is still armed).
int trips_io_uring_has_more(uint32_t flags);
const unsigned char *_Nonnull trips_io_uring_buffer(const trips_io_uring *_Nonnull ring, int id);
/// Gives buffer `id` back to the kernel.
void trips_io_uring_recycle(trips_io_uring *_Nonnull ring, int id);

#endif
