/* --help for the C examples (the C++ ones use common/example_support.hpp). */
#ifndef ESDIRK_EXAMPLE_HELP_H
#define ESDIRK_EXAMPLE_HELP_H

#include <stdio.h>
#include <string.h>

/* Returns 1 when the command line asks for help (--help or -h anywhere); `usage` is then
 * printed on stdout and the caller exits with 0. */
static int example_print_help_if_asked(int argc, char** argv, const char* usage) {
  int i;
  for (i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return 1;
    }
  return 0;
}

#endif
