#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro (`(sqlite3_destructor_type)-1`) that Swift cannot import:
// returned from a function so bound text and blobs are copied by SQLite before the call returns.
static inline sqlite3_destructor_type rt_sqlite_transient(void) { return SQLITE_TRANSIENT; }
