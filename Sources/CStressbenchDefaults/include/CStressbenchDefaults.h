#ifndef C_STRESSBENCH_DEFAULTS_H
#define C_STRESSBENCH_DEFAULTS_H

// ThreadSanitizer's defaults for the `stressbench` executable itself (see
// tsan_defaults.c). Nothing here is called from Swift: ThreadSanitizer calls
// it, in a TSan build only, as the process starts.
const char *__tsan_default_options(void);

#endif
