/*
 * Compiler attributes and small macros every file of Formback uses
 * (after OpenBSD's <sys/cdefs.h>).
 */
#ifndef FB_CDEFS_H
#define FB_CDEFS_H

#define FB_WUR __attribute__((warn_unused_result))
#define FB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif /* FB_CDEFS_H */
