#ifndef FILEDROP_CAVAHI_SHIM_H
#define FILEDROP_CAVAHI_SHIM_H
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

/* The poll's watch_new is a function pointer in a struct: one call here instead of
   reaching through AvahiPoll from Swift. Call it before the poll thread starts. */
static inline AvahiWatch *filedrop_avahi_watch_readable(AvahiThreadedPoll *poll, int fd,
                                                        AvahiWatchCallback callback, void *userdata) {
    const AvahiPoll *api = avahi_threaded_poll_get(poll);
    return api->watch_new(api, fd, AVAHI_WATCH_IN, callback, userdata);
}

static inline void filedrop_avahi_watch_free(AvahiThreadedPoll *poll, AvahiWatch *watch) {
    avahi_threaded_poll_get(poll)->watch_free(watch);
}
#endif
