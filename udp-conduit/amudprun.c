/* amudprun.c: PLACEHOLDER (being written): the udp launcher's command line. */
#include "udp_internal.h"
int main(int argc, char **argv) { return gasnetc_udp_launch(1, "L", argc - 1, argv + 1, 0); }
