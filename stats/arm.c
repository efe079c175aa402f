/*
 * arm.c - the arm of an experiment (LOCKSWAP_ARMS) as the JSON "arm"
 * object (docs/stats-schema.json) and as a line of the stderr summary.
 * The shim chose it; here it is only reported.
 */
#include "arm.h"
#include "table.h"

const struct ls_stats_arm *ls_stats_arm(void)
{
	return ls_stats_given()->arm;
}

static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

void ls_stats_write_arm_json(struct ls_out *o)
{
	const struct ls_stats_arm *a = ls_stats_arm();
	if (!a)
		return;
	ls_out_put(o, ",\"arm\":{\"name\":");
	ls_out_json_str(o, text_or_empty(a->name));
	ls_out_printf(o, ",\"index\":%u,\"arms\":%u,\"key\":", a->index, a->count);
	ls_out_json_str(o, text_or_empty(a->key));
	ls_out_put(o, ",\"key_value\":");
	ls_out_json_str(o, text_or_empty(a->key_value));
	if (a->seeded)
		ls_out_printf(o, ",\"seed\":%llu", (unsigned long long)a->seed);
	else
		ls_out_put(o, ",\"seed\":null");
	ls_out_put(o, ",\"settings\":");
	ls_out_json_str(o, text_or_empty(a->settings));
	ls_out_put(o, "}");
}

void ls_stats_write_arm_text(struct ls_out *o)
{
	const struct ls_stats_arm *a = ls_stats_arm();
	if (!a)
		return;
	ls_out_printf(o, "  arm %s (%u of %u), key %s", text_or_empty(a->name), a->index + 1,
	              a->count, text_or_empty(a->key));
	if (a->seeded)
		ls_out_printf(o, " seed %llu", (unsigned long long)a->seed);
	else
		ls_out_printf(o, "=%s", text_or_empty(a->key_value));
	ls_out_put(o, ": "); /* settings may be longer than a printf line */
	ls_out_put(o, text_or_empty(a->settings));
	ls_out_put(o, "\n");
}
