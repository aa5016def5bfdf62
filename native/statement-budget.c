/*
 * A SQLite loadable extension that gives every statement of a connection a time budget.
 *
 * better-sqlite3 is built without progress callbacks and does not expose sqlite3_interrupt, so
 * a runaway statement would hold the (synchronous) event loop for as long as it runs. This adds
 * one SQL function, ftcapi_statement_budget(ms): with ms > 0 it arms a watchdog thread that
 * calls sqlite3_interrupt on the connection once ms have passed; with ms <= 0 it disarms it. The
 * caller arms before a statement and disarms after it; an interrupted statement fails with
 * SQLITE_INTERRUPT. sqlite3_interrupt is safe to call from another thread, and the watchdog
 * only calls it while armed, under a mutex that disarming also takes.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct Watchdog {
  sqlite3 *db;
  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  struct timespec deadline;
  int armed;
  /* Whether the watchdog waits without a deadline, so that arming must wake it. */
  int idle;
  int stopping;
} Watchdog;

static int passed(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static void *watch(void *argument) {
  Watchdog *watchdog = argument;
  pthread_mutex_lock(&watchdog->mutex);
  while (!watchdog->stopping) {
    if (!watchdog->armed) {
      watchdog->idle = 1;
      pthread_cond_wait(&watchdog->wake, &watchdog->mutex);
      watchdog->idle = 0;
    } else if (passed(&watchdog->deadline)) {
      sqlite3_interrupt(watchdog->db);
      watchdog->armed = 0;
    } else {
      pthread_cond_timedwait(&watchdog->wake, &watchdog->mutex, &watchdog->deadline);
    }
  }
  pthread_mutex_unlock(&watchdog->mutex);
  return NULL;
}

static void budget(sqlite3_context *context, int argc, sqlite3_value **argv) {
  Watchdog *watchdog = sqlite3_user_data(context);
  sqlite3_int64 milliseconds = argc > 0 ? sqlite3_value_int64(argv[0]) : 0;
  pthread_mutex_lock(&watchdog->mutex);
  if (milliseconds > 0) {
    clock_gettime(CLOCK_MONOTONIC, &watchdog->deadline);
    watchdog->deadline.tv_sec += milliseconds / 1000;
    watchdog->deadline.tv_nsec += (milliseconds % 1000) * 1000000L;
    if (watchdog->deadline.tv_nsec >= 1000000000L) {
      watchdog->deadline.tv_sec += 1;
      watchdog->deadline.tv_nsec -= 1000000000L;
    }
    watchdog->armed = 1;
    /*
     * A watchdog waiting for an earlier deadline needs no wake-up: budgets are fixed per
     * connection, so deadlines only move later, and on waking it waits again for the new one.
     * Waking it on every statement cost two context switches a statement.
     */
    if (watchdog->idle) pthread_cond_signal(&watchdog->wake);
  } else {
    /* Disarming needs no wake-up either: a watchdog that wakes disarmed waits without a deadline. */
    watchdog->armed = 0;
  }
  pthread_mutex_unlock(&watchdog->mutex);
  sqlite3_result_null(context);
}

/* Runs when the connection closes (or the function is replaced): stops and frees the watchdog. */
static void destroy(void *argument) {
  Watchdog *watchdog = argument;
  pthread_mutex_lock(&watchdog->mutex);
  watchdog->stopping = 1;
  watchdog->armed = 0;
  pthread_cond_signal(&watchdog->wake);
  pthread_mutex_unlock(&watchdog->mutex);
  pthread_join(watchdog->thread, NULL);
  pthread_cond_destroy(&watchdog->wake);
  pthread_mutex_destroy(&watchdog->mutex);
  free(watchdog);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_statementbudget_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  Watchdog *watchdog = calloc(1, sizeof(Watchdog));
  if (watchdog == NULL) return SQLITE_NOMEM;
  watchdog->db = db;
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&watchdog->wake, &attributes);
  pthread_condattr_destroy(&attributes);
  pthread_mutex_init(&watchdog->mutex, NULL);
  if (pthread_create(&watchdog->thread, NULL, watch, watchdog) != 0) {
    pthread_cond_destroy(&watchdog->wake);
    pthread_mutex_destroy(&watchdog->mutex);
    free(watchdog);
    *error = sqlite3_mprintf("ftcapi_statement_budget: cannot start the watchdog thread");
    return SQLITE_ERROR;
  }
  return sqlite3_create_function_v2(db, "ftcapi_statement_budget", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                    watchdog, budget, NULL, NULL, destroy);
}
