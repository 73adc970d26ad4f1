// See include/TripsIOURing.h. The ring protocol follows io_uring(7) and io_uring_setup(2):
// the application writes submission entries and publishes the submission tail with a release
// store; the kernel publishes the completion tail likewise, and the application frees slots by
// storing the completion head. Buffers of the provided-buffer ring are given back the same way.
#include "TripsIOURing.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOAD_ACQUIRE(pointer) __atomic_load_n((pointer), __ATOMIC_ACQUIRE)
#define STORE_RELEASE(pointer, value) __atomic_store_n((pointer), (value), __ATOMIC_RELEASE)

static int setup(unsigned entries, struct io_uring_params *params, unsigned flags) {
    memset(params, 0, sizeof *params);
    params->flags = flags | IORING_SETUP_CQSIZE;
    params->cq_entries = entries * 4;  // answers and receives of a busy turn, with room
    long descriptor = syscall(__NR_io_uring_setup, entries, params);
    return descriptor < 0 ? -errno : (int)descriptor;
}

static int map_rings(trips_io_uring *ring, const struct io_uring_params *params) {
    size_t submission_size = params->sq_off.array + params->sq_entries * sizeof(unsigned);
    size_t completion_size = params->cq_off.cqes + params->cq_entries * sizeof(struct io_uring_cqe);
    int single = (params->features & IORING_FEAT_SINGLE_MMAP) != 0;
    if (single && completion_size > submission_size) submission_size = completion_size;
    void *submission = mmap(NULL, submission_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                            ring->descriptor, IORING_OFF_SQ_RING);
    if (submission == MAP_FAILED) return -errno;
    void *completion = submission;
    if (!single) {
        completion = mmap(NULL, completion_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                          ring->descriptor, IORING_OFF_CQ_RING);
        if (completion == MAP_FAILED) {
            int error = -errno;
            munmap(submission, submission_size);
            return error;
        }
    }
    size_t entries_size = params->sq_entries * sizeof(struct io_uring_sqe);
    void *entries = mmap(NULL, entries_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                         ring->descriptor, IORING_OFF_SQES);
    if (entries == MAP_FAILED) {
        int error = -errno;
        if (!single) munmap(completion, completion_size);
        munmap(submission, submission_size);
        return error;
    }
    unsigned char *sq = submission, *cq = completion;
    ring->submission_map = submission;
    ring->submission_map_size = submission_size;
    ring->completion_map = completion;
    ring->completion_map_size = single ? 0 : completion_size;
    ring->submission_entries_memory = entries;
    ring->entries_map_size = entries_size;
    ring->submission_entries = params->sq_entries;
    ring->submission_head = (unsigned *)(sq + params->sq_off.head);
    ring->submission_tail = (unsigned *)(sq + params->sq_off.tail);
    ring->submission_mask = *(unsigned *)(sq + params->sq_off.ring_mask);
    ring->local_tail = *ring->submission_tail;
    unsigned *array = (unsigned *)(sq + params->sq_off.array);
    for (unsigned index = 0; index < params->sq_entries; index++) array[index] = index;  // slot i is entry i
    ring->completion_head = (unsigned *)(cq + params->cq_off.head);
    ring->completion_tail = (unsigned *)(cq + params->cq_off.tail);
    ring->completion_mask = *(unsigned *)(cq + params->cq_off.ring_mask);
    ring->completions = cq + params->cq_off.cqes;
    return 0;
}

static void unmap_rings(trips_io_uring *ring) {
    munmap(ring->submission_entries_memory, ring->entries_map_size);
    if (ring->completion_map_size) munmap(ring->completion_map, ring->completion_map_size);
    munmap(ring->submission_map, ring->submission_map_size);
}

static int provide_buffers(trips_io_uring *ring, unsigned count, unsigned size, const char **failed_call) {
    size_t ring_size = count * sizeof(struct io_uring_buf);
    void *buffers = mmap(NULL, ring_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffers == MAP_FAILED) return -errno;
    unsigned char *memory = mmap(NULL, (size_t)count * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        int error = -errno;
        munmap(buffers, ring_size);
        return error;
    }
    *failed_call = "io_uring_register";  // IORING_REGISTER_PBUF_RING: Linux 5.19
    struct io_uring_buf_reg registration = {.ring_addr = (uint64_t)(uintptr_t)buffers, .ring_entries = count, .bgid = 0};
    if (syscall(__NR_io_uring_register, ring->descriptor, IORING_REGISTER_PBUF_RING, &registration, 1) < 0) {
        int error = -errno;
        munmap(memory, (size_t)count * size);
        munmap(buffers, ring_size);
        return error;
    }
    ring->buffer_ring = buffers;
    ring->buffer_ring_size = ring_size;
    ring->buffer_memory = memory;
    ring->buffer_count = count;
    ring->buffer_size = size;
    ring->buffer_tail = 0;
    for (unsigned id = 0; id < count; id++) trips_io_uring_recycle(ring, (int)id);
    return 0;
}

int trips_io_uring_open(trips_io_uring *ring, unsigned entries, unsigned buffer_count, unsigned buffer_size,
                        const char **failed_call) {
    memset(ring, 0, sizeof *ring);
    *failed_call = "io_uring_setup";
    struct io_uring_params params;
    // One thread submits, and runs the completions' work when it waits (Linux 6.1); older
    // kernels refuse the flags, and get a ring without them.
    int descriptor = setup(entries, &params,
                           IORING_SETUP_R_DISABLED | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
    if (descriptor == -EINVAL) descriptor = setup(entries, &params, IORING_SETUP_R_DISABLED);
    if (descriptor < 0) return descriptor;
    ring->descriptor = descriptor;
    *failed_call = "mmap";
    int error = map_rings(ring, &params);
    if (error == 0) {
        error = provide_buffers(ring, buffer_count, buffer_size, failed_call);
        if (error) unmap_rings(ring);
    }
    if (error) close(descriptor);
    return error;
}

int trips_io_uring_enable(trips_io_uring *ring) {
    return syscall(__NR_io_uring_register, ring->descriptor, IORING_REGISTER_ENABLE_RINGS, NULL, 0) < 0 ? -errno : 0;
}

void trips_io_uring_close(trips_io_uring *ring) {
    close(ring->descriptor);  // first: the kernel stops using the buffers before they go
    munmap(ring->buffer_memory, (size_t)ring->buffer_count * ring->buffer_size);
    munmap(ring->buffer_ring, ring->buffer_ring_size);
    unmap_rings(ring);
}

int trips_io_uring_enter(trips_io_uring *ring, unsigned wait_for, int64_t timeout_ns) {
    unsigned submitting = ring->local_tail - *ring->submission_tail;
    STORE_RELEASE(ring->submission_tail, ring->local_tail);
    unsigned flags = IORING_ENTER_GETEVENTS;  // also runs completions' deferred work
    struct __kernel_timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
    struct io_uring_getevents_arg argument = {.sigmask_sz = _NSIG / 8, .ts = (uint64_t)(uintptr_t)&timeout};
    void *extra = NULL;
    size_t extra_size = 0;
    if (timeout_ns >= 0 && wait_for > 0) {
        flags |= IORING_ENTER_EXT_ARG;
        extra = &argument;
        extra_size = sizeof argument;
    }
    long result = syscall(__NR_io_uring_enter, ring->descriptor, submitting, wait_for, flags, extra, extra_size);
    return result < 0 ? -errno : (int)result;
}

unsigned trips_io_uring_take(trips_io_uring *ring, trips_io_uring_completion *out, unsigned capacity) {
    unsigned head = *ring->completion_head;
    unsigned ready = LOAD_ACQUIRE(ring->completion_tail) - head;
    unsigned count = ready < capacity ? ready : capacity;
    const struct io_uring_cqe *completions = ring->completions;
    for (unsigned index = 0; index < count; index++) {
        const struct io_uring_cqe *completion = &completions[(head + index) & ring->completion_mask];
        out[index] = (trips_io_uring_completion){completion->user_data, completion->res, completion->flags};
    }
    STORE_RELEASE(ring->completion_head, head + count);
    return count;
}

int trips_io_uring_is_full(const trips_io_uring *ring) {
    return ring->local_tail - LOAD_ACQUIRE(ring->submission_head) >= ring->submission_entries;
}

static struct io_uring_sqe *next_entry(trips_io_uring *ring, int opcode, int descriptor, uint64_t user_data) {
    struct io_uring_sqe *entries = ring->submission_entries_memory;
    struct io_uring_sqe *entry = &entries[ring->local_tail & ring->submission_mask];
    ring->local_tail++;
    memset(entry, 0, sizeof *entry);
    entry->opcode = (uint8_t)opcode;
    entry->fd = descriptor;
    entry->user_data = user_data;
    return entry;
}

void trips_io_uring_accept(trips_io_uring *ring, int listener, uint64_t user_data) {
    struct io_uring_sqe *entry = next_entry(ring, IORING_OP_ACCEPT, listener, user_data);
    entry->accept_flags = SOCK_CLOEXEC;
    entry->ioprio = IORING_ACCEPT_MULTISHOT;
}

void trips_io_uring_receive(trips_io_uring *ring, int descriptor, uint64_t user_data) {
    struct io_uring_sqe *entry = next_entry(ring, IORING_OP_RECV, descriptor, user_data);
    entry->len = ring->buffer_size;
    entry->flags = IOSQE_BUFFER_SELECT;
    entry->buf_group = 0;
}

void trips_io_uring_send(trips_io_uring *ring, int descriptor, const void *bytes, size_t count, uint64_t user_data) {
    struct io_uring_sqe *entry = next_entry(ring, IORING_OP_SEND, descriptor, user_data);
    entry->addr = (uint64_t)(uintptr_t)bytes;
    entry->len = count > 0x7fffffff ? 0x7fffffff : (unsigned)count;
    entry->msg_flags = MSG_NOSIGNAL;
}

void trips_io_uring_poll_readable(trips_io_uring *ring, int descriptor, uint64_t user_data) {
    struct io_uring_sqe *entry = next_entry(ring, IORING_OP_POLL_ADD, descriptor, user_data);
    entry->poll32_events = POLLIN;
    entry->len = IORING_POLL_ADD_MULTI;
}

void trips_io_uring_cancel_descriptor(trips_io_uring *ring, int descriptor, uint64_t user_data) {
    struct io_uring_sqe *entry = next_entry(ring, IORING_OP_ASYNC_CANCEL, descriptor, user_data);
    entry->cancel_flags = IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL;
}

int trips_io_uring_buffer_id(uint32_t flags) {
    return (flags & IORING_CQE_F_BUFFER) ? (int)(flags >> IORING_CQE_BUFFER_SHIFT) : -1;
}

int trips_io_uring_has_more(uint32_t flags) { return (flags & IORING_CQE_F_MORE) != 0; }

const unsigned char *trips_io_uring_buffer(const trips_io_uring *ring, int id) {
    return ring->buffer_memory + (size_t)id * ring->buffer_size;
}

void trips_io_uring_recycle(trips_io_uring *ring, int id) {
    struct io_uring_buf_ring *buffers = ring->buffer_ring;
    struct io_uring_buf *buffer = &buffers->bufs[ring->buffer_tail & (ring->buffer_count - 1)];
    buffer->addr = (uint64_t)(uintptr_t)(ring->buffer_memory + (size_t)id * ring->buffer_size);
    buffer->len = ring->buffer_size;
    buffer->bid = (uint16_t)id;
    ring->buffer_tail++;
    STORE_RELEASE(&buffers->tail, ring->buffer_tail);
}
