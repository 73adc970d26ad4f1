// changes_client: many /trips/changes subscribers on one epoll loop, and a writer thread.
//
//   changes_client deliver HOST PORT SUBSCRIBERS SECONDS RATE
//     Opens SUBSCRIBERS event streams, then a writer makes RATE changes a second for SECONDS
//     (PUT and DELETE /favorites/2 in turn, on one keep-alive connection) and notes when each
//     revision was acknowledged. Every subscriber notes when each event arrives. Prints
//     whether every event reached every subscriber in order, and the delivery latency
//     (acknowledgement to receipt) percentiles.
//   changes_client idle HOST PORT SUBSCRIBERS SECONDS
//     Opens SUBSCRIBERS event streams and holds them for SECONDS (reading heartbeats).
//
// Built by scripts/bench/changes.sh with gcc; traffic goes only to HOST (loopback).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static const char *host;
static int port;

static int connect_to(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { perror("socket"); exit(1); }
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { perror("connect"); exit(1); }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *text) {
    size_t length = strlen(text), sent = 0;
    while (sent < length) {
        ssize_t n = send(fd, text + sent, length - sent, MSG_NOSIGNAL);
        if (n <= 0) { perror("send"); exit(1); }
        sent += (size_t)n;
    }
}

// ---- the writer ------------------------------------------------------------------------

#define MAX_REVISIONS 1000000
static double *acked_at;           // by revision
static volatile long first_revision = -1, last_revision = -1;
static volatile int writer_done = 0;
static int seconds_to_run, rate;

static void *writer(void *unused) {
    (void)unused;
    int fd = connect_to();
    char buffer[65536];
    double start = now_ms();
    long total = (long)seconds_to_run * rate;
    for (long i = 0; i < total; i++) {
        double due = start + i * 1000.0 / rate;
        while (now_ms() < due) { struct timespec pause = {0, 200000}; nanosleep(&pause, NULL); }
        send_all(fd, i % 2 == 0 ? "PUT /favorites/2 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                : "DELETE /favorites/2 HTTP/1.1\r\nHost: localhost\r\n\r\n");
        size_t have = 0;
        char *end = NULL;
        while (!end) {  // each answer is one trip: its head and a small body in one or two reads
            ssize_t n = recv(fd, buffer + have, sizeof buffer - 1 - have, 0);
            if (n <= 0) { perror("writer recv"); exit(1); }
            have += (size_t)n;
            buffer[have] = 0;
            end = strstr(buffer, "\r\n\r\n");
            if (end) {
                char *length = strcasestr(buffer, "\r\nContent-Length: ");
                long body = length ? atol(length + 18) : 0;
                while ((long)(have - (size_t)(end + 4 - buffer)) < body) {
                    n = recv(fd, buffer + have, sizeof buffer - 1 - have, 0);
                    if (n <= 0) { perror("writer recv"); exit(1); }
                    have += (size_t)n;
                }
            }
        }
        double at = now_ms();
        char *field = strcasestr(buffer, "\r\nTrips-Revision: ");
        if (!field) { fprintf(stderr, "no Trips-Revision in %s\n", buffer); exit(1); }
        long revision = atol(field + 18);
        if (revision < MAX_REVISIONS) acked_at[revision] = at;
        if (first_revision < 0) first_revision = revision;
        last_revision = revision;
    }
    close(fd);
    writer_done = 1;
    return NULL;
}

// ---- the subscribers --------------------------------------------------------------------

typedef struct {
    int fd;
    long expected;   // the next revision it must see; -1 before its first event
    long first;      // the first revision it saw
    long received;
    long out_of_order;
    int ready;       // its stream's retry line has arrived: it follows every change from now
    char partial[64];  // the start of an "id: N" line split across reads
    int partial_length;
} Subscriber;

static double *latencies;
static long latency_count, latency_capacity;

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// Finds every "\nid: N\n" in what arrived (ids start a line; the stream's first is after a blank line).
static void scan(Subscriber *s, const char *data, size_t length, double at) {
    char text[65536 + 64];
    memcpy(text, s->partial, (size_t)s->partial_length);
    memcpy(text + s->partial_length, data, length);
    size_t total = (size_t)s->partial_length + length;
    text[total] = 0;
    char *cursor = text;
    char *found;
    while ((found = strstr(cursor, "\nid: ")) != NULL) {
        char *line_end = strchr(found + 5, '\n');
        if (!line_end) break;
        long revision = atol(found + 5);
        if (s->expected >= 0 && revision != s->expected) s->out_of_order++;
        if (s->expected < 0) s->first = revision;
        s->expected = revision + 1;
        s->received++;
        if (revision < MAX_REVISIONS && acked_at[revision] > 0 && latency_count < latency_capacity) {
            double delay = at - acked_at[revision];
            latencies[latency_count++] = delay < 0 ? 0 : delay;
        } else if (revision < MAX_REVISIONS && latency_count < latency_capacity) {
            latencies[latency_count++] = 0;  // arrived before the writer read its own answer
        }
        cursor = line_end;
    }
    size_t keep = total - (size_t)(cursor - text);
    if (keep > sizeof s->partial - 1) keep = sizeof s->partial - 1;
    memcpy(s->partial, text + total - keep, keep);
    s->partial_length = (int)keep;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s deliver|idle HOST PORT SUBSCRIBERS SECONDS [RATE]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    host = argv[2];
    port = atoi(argv[3]);
    int count = atoi(argv[4]);
    seconds_to_run = atoi(argv[5]);
    rate = argc > 6 ? atoi(argv[6]) : 200;
    struct rlimit files = {(rlim_t)count + 64, (rlim_t)count + 64};
    setrlimit(RLIMIT_NOFILE, &files);

    acked_at = calloc(MAX_REVISIONS, sizeof(double));
    Subscriber *subscribers = calloc((size_t)count, sizeof(Subscriber));
    int epoll = epoll_create1(0);
    for (int i = 0; i < count; i++) {
        Subscriber *s = &subscribers[i];
        s->fd = connect_to();
        s->expected = -1;
        send_all(s->fd, "GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n");
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = s};
        epoll_ctl(epoll, EPOLL_CTL_ADD, s->fd, &event);
    }
    // Every stream answered (its retry line arrived) before the first change is made, so
    // each must see every change.
    struct epoll_event events[512];
    char buffer[65536];
    int ready_count = 0;
    while (ready_count < count) {
        int ready = epoll_wait(epoll, events, 512, 5000);
        if (ready <= 0) { fprintf(stderr, "only %d of %d streams answered\n", ready_count, count); return 1; }
        for (int i = 0; i < ready; i++) {
            Subscriber *s = events[i].data.ptr;
            ssize_t n = recv(s->fd, buffer, sizeof buffer - 1, 0);
            if (n <= 0) { fprintf(stderr, "a stream closed before it answered\n"); return 1; }
            buffer[n] = 0;
            if (!s->ready && strstr(buffer, "retry: ")) { s->ready = 1; ready_count++; }
        }
    }
    printf("subscribers %d open\n", count);
    fflush(stdout);

    latency_capacity = (long)count * seconds_to_run * rate + 1000;
    if (strcmp(mode, "deliver") == 0) latencies = malloc(sizeof(double) * (size_t)latency_capacity);
    pthread_t thread;
    if (strcmp(mode, "deliver") == 0) pthread_create(&thread, NULL, writer, NULL);

    double stop_at = now_ms() + seconds_to_run * 1000.0;
    double drain_until = 0;
    long closed = 0;
    while (1) {
        double now = now_ms();
        if (strcmp(mode, "idle") == 0 && now >= stop_at) break;
        if (strcmp(mode, "deliver") == 0 && writer_done) {
            if (drain_until == 0) drain_until = now + 2000;  // the last events' time to arrive
            int all = 1;
            for (int i = 0; i < count && all; i++) all = subscribers[i].expected > last_revision;
            if (all || now >= drain_until) break;
        }
        int ready = epoll_wait(epoll, events, 512, 50);
        double at = now_ms();
        for (int i = 0; i < ready; i++) {
            Subscriber *s = events[i].data.ptr;
            ssize_t n = recv(s->fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                epoll_ctl(epoll, EPOLL_CTL_DEL, s->fd, NULL);
                closed++;
                continue;
            }
            if (latencies) scan(s, buffer, (size_t)n, at);
        }
    }
    if (strcmp(mode, "idle") == 0) {
        printf("idle subscribers held: %d, closed by the server: %ld\n", count, closed);
        return closed == 0 ? 0 : 1;
    }
    pthread_join(thread, NULL);
    long changes = last_revision - first_revision + 1;
    long complete = 0, out_of_order = 0;
    for (int i = 0; i < count; i++) {
        Subscriber *s = &subscribers[i];
        if (s->expected > last_revision && s->first == first_revision) complete++;
        out_of_order += s->out_of_order;
    }
    qsort(latencies, (size_t)latency_count, sizeof(double), compare);
    double p50 = latency_count ? latencies[latency_count / 2] : 0;
    double p99 = latency_count ? latencies[(long)(latency_count * 0.99)] : 0;
    double max = latency_count ? latencies[latency_count - 1] : 0;
    printf("changes %ld (revisions %ld-%ld), subscribers %d, complete %ld, out of order %ld, closed %ld\n",
        changes, first_revision, last_revision, count, complete, out_of_order, closed);
    printf("events received %ld of %ld\n", latency_count, changes * count);
    printf("delivery ms: p50 %.2f p99 %.2f max %.2f\n", p50, p99, max);
    return complete == count && out_of_order == 0 ? 0 : 1;
}
