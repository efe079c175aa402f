/* json_frame.c - ls_json_frame (report.h): one frame as a JSON object, for
 * the statistics' file (json.c) and the lock-order and hang reports
 * (watch_out.c), which both print stacks. */
#include "report.h"

void ls_json_frame(struct ls_out *o, uintptr_t pc)
{
	struct ls_sym s;
	bool named = ls_symbolize(pc, &s);
	ls_out_printf(o, "{\"addr\":\"0x%lx\",\"symbol\":", (unsigned long)pc);
	if (named)
		ls_out_json_str(o, s.name);
	else
		ls_out_put(o, "null");
	ls_out_put(o, ",\"object\":");
	if (s.obj[0])
		ls_out_json_str(o, s.obj);
	else
		ls_out_put(o, "null");
	ls_out_printf(o, ",\"offset\":\"0x%lx\"}", (unsigned long)s.off);
}
