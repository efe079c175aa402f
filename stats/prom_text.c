#include "prom_text.h"

void ls_prom_help(struct ls_out *o, const char *name, const char *type, const char *text)
{
	ls_out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}
