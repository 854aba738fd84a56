/*
** err.c: error message formatting.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <string.h>
#include "game/err.h"

dab_status dab_fail(dab_err *err, dab_status code, const char *fmt, ...) {
  if (err) {
    /* Formatted aside first: an argument may be err->msg itself (a
    ** prefix or suffix on an earlier message), and vsnprintf must not
    ** read the buffer it writes. */
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(err->msg, msg, sizeof msg);
    for (char *c = err->msg; *c; c++)  /* one line, whatever the input echoed */
      if ((unsigned char)*c < 32 || *c == 127) *c = '?';
  }
  return code;
}

const char *dab_status_name(dab_status code) {
  switch (code) {
    case DAB_OK: return "ok";
    case DAB_EINPUT: return "bad input";
    case DAB_EBOARD: return "unsupported board";
    case DAB_ENOMEM: return "out of memory";
    case DAB_EIO: return "i/o error";
    case DAB_ECORRUPT: return "corrupt data";
    case DAB_ECANCELED: return "canceled";
    case DAB_EINTERNAL: return "internal error";
  }
  return "unknown error";
}
