#ifndef FILEDROP_CLINUX_SHIM_H
#define FILEDROP_CLINUX_SHIM_H
/* Linux calls that Glibc's Swift module hides behind _GNU_SOURCE, in the spirit of swift-nio's
 * CNIOLinux. Defining _GNU_SOURCE here would make this module's libc structs differ from
 * SwiftGlibc's, so the GNU prototypes are declared as glibc declares them instead.
 * Header only: they live in libc, nothing more to link. */
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);
extern pid_t gettid(void);
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

static inline int filedrop_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

/* The on-upload hook's child keeps only stdin, stdout and stderr (glibc 2.34), and starts in
 * the save directory (glibc 2.29). */
static inline int filedrop_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

static inline int filedrop_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

/* A Unix socket peer's user and group at connect time (SO_PEERCRED; struct ucred is GNU-only),
 * and its supplementary groups (SO_PEERGROUPS, Linux 4.13): the control socket's check. */
static inline int filedrop_peer_credentials(int fd, uid_t *uid, gid_t *gid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

static inline int filedrop_peer_groups(int fd, gid_t *groups, int capacity) {
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
}

static inline int filedrop_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

static inline int filedrop_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                                     unsigned int flags) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

static inline int filedrop_sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags) {
    return sync_file_range(fd, offset, nbytes, flags);
}

/* Thread names are what top -H and /proc/PID/task/TID/comm show: loop-N, worker-N. */
static inline int filedrop_name_thread(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}

static inline pid_t filedrop_gettid(void) {
    return gettid();
}

/* sched(7): SCHED_IDLE runs a thread only when no other wants the CPU (sched.h hides it
 * behind _GNU_SOURCE); 0 is the calling thread. */
static inline int filedrop_set_idle_scheduling(int idle) {
    struct sched_param param = { .sched_priority = 0 };
    return sched_setscheduler(0, idle ? 5 : SCHED_OTHER, &param);
}

/* Values from linux/fcntl.h and linux/fs.h (O_DIRECTORY differs per architecture). */
static const int filedrop_O_TMPFILE = 020000000 | O_DIRECTORY;
static const unsigned int filedrop_RENAME_NOREPLACE = 1;
static const unsigned int filedrop_SYNC_FILE_RANGE_WAIT_BEFORE = 1;
static const unsigned int filedrop_SYNC_FILE_RANGE_WRITE = 2;
static const unsigned int filedrop_SYNC_FILE_RANGE_WAIT_AFTER = 4;
/* getxattrat(2), Linux 6.13: an extended attribute of `path` in the directory `dirfd`, without
 * opening the file or resolving a /proc/self/fd path. Glibc has no wrapper yet; syscall(2) is
 * variadic, which Swift cannot call. 464 is its number on every architecture (the unified
 * table since 424). Older kernels answer -1 with ENOSYS. */
struct filedrop_xattr_args {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

static inline long filedrop_getxattrat(int dirfd, const char *path, unsigned int at_flags, const char *name,
                                       void *value, size_t size) {
#ifdef __NR_getxattrat
    long number = __NR_getxattrat;
#else
    long number = 464;
#endif
    struct filedrop_xattr_args args = { (uint64_t)(uintptr_t)value, (uint32_t)size, 0 };
    return syscall(number, dirfd, path, at_flags, name, &args, sizeof args);
}

#endif
