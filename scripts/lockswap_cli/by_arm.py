"""`lockswap report --by-arm FILES...`: the statistics files of many
processes, grouped by arm (fleet.py), compared per measure
(fleet_compare.py) and merged per call site (fleet_sites.py); tables on
stdout, and with --out PREFIX the .md, .csv, .json and .png files."""
from . import callsite, fleet, fleet_compare, fleet_plot, fleet_sites, output
from .errors import UsageError
from .stats_file import fmt_ns

ARM_HEADERS = ("arm", "processes", "with value", "median", "min", "max",
               "ratio", "95% CI", "verdict")
ARM_LEFT = (0, 8)
SITE_HEADERS = ("lock (variable or first-use site)", "arm", "processes", "acquired",
                "contended", "cont%", "wait (est.)", "wait p99")
SITE_LEFT = (0, 1)
# C++ first-use sites are mangled names of 100 characters and more: the
# tables keep the start (namespace, class, function); the .json has them whole.
SITE_WIDTH = 60


def shorten(text, width=SITE_WIDTH):
    """A site as the tables show it: template arguments shortened, then cut."""
    text = callsite.short_templates(text)
    return text if len(text) <= width else text[:width - 3] + "..."


def measure_rows(measure, rows):
    f = measure.fmt
    if measure.by_difference:  # "+0.412" and "[+0.301, +0.550]": arm - baseline
        def diff(v):
            return "-" if v is None else f"{v:+.3f}"
        return [(r["arm"], r["processes"], r["n"], f(r["median"]), f(r["min"]), f(r["max"]),
                 diff(r.get("difference")) + (" (diff)" if r.get("difference") is not None else ""),
                 "-" if r["ci_low"] is None else f"[{diff(r['ci_low'])}, {diff(r['ci_high'])}]",
                 r["verdict"]) for r in rows]
    return [(r["arm"], r["processes"], r["n"], f(r["median"]), f(r["min"]), f(r["max"]),
             output.fmt_ratio(r["ratio"]), output.fmt_ci(r["ci_low"], r["ci_high"]),
             r["verdict"]) for r in rows]


def site_rows(ranked, arms, top):
    out = []
    for site, per_arm in ranked[:top]:
        for arm, r in zip(arms, per_arm):
            if r is None:
                out.append((shorten(site), arm, 0, "-", "-", "-", "-", "-"))
                continue
            share = f"{100 * r['contended'] / r['acquisitions']:.2f}" if r["acquisitions"] else "-"
            out.append((shorten(site), arm, r["processes"], r["acquisitions"], r["contended"], share,
                        fmt_ns(r["wait_ns"]), fmt_ns(r["p99_wait_ns"])))
    return out


class Comparison:
    """Everything the command computes, once, for every output."""

    def __init__(self, args):
        procs = fleet.load_fleet(args.files, args.metric)
        fleet.check_settings(procs)
        self.arms = fleet.group(procs)
        if len(self.arms) < 2:
            raise UsageError(f"--by-arm needs processes of two arms or more; all "
                             f"{len(procs)} ran {next(iter(self.arms))}")
        self.baseline = fleet.pick_baseline(self.arms, args.baseline)
        if args.metric and not any(p.values["metric"] is not None for p in procs):
            raise UsageError(f"--metric {args.metric}: no process reports it (looked for the key "
                             f"in {fleet.app_path(procs[0].path)} and the other *{fleet.APP_SUFFIX})")
        self.procs, self.seed, self.top, self.metric = procs, args.seed, args.top, args.metric
        self.by_arm_object = any(p.arm_index is not None for p in procs)
        self.order = [self.baseline] + [a for a in self.arms if a != self.baseline]
        self.results = fleet_compare.compare_all(
            self.arms, self.baseline,
            fleet_compare.measures(args.metric, args.lower_is_better), self.seed)
        self.site_rows = fleet_sites.merge(self.arms)
        self.ranked = fleet_sites.ranked(self.site_rows, self.order)
        self.totals = fleet_sites.arm_totals(self.site_rows, self.order)

    def heading(self):
        grouped = "their \"arm\"" if self.by_arm_object else "their \"backend\" (no \"arm\" object)"
        counts = ", ".join(f"{a} {len(self.arms[a])}" for a in self.order)
        return (f"{len(self.procs)} processes grouped by {grouped}: {counts}; baseline "
                f"{self.baseline}; bootstrap seed {self.seed}")

    def note(self):
        return ("One process is one sample: median over an arm's processes; ratio = arm median / "
                f"{self.baseline} median, 95% bootstrap CI over processes; better/worse when it "
                "excludes 1.0.  Min share is compared by difference (arm median - "
                f"{self.baseline} median, better/worse when its CI excludes 0): a ratio of "
                "near-zero shares means nothing.")

    def render(self, table, title=lambda s: s + ":"):
        out = [self.heading(), ""]
        for measure, rows in self.results:
            out += [title(measure.label), "",
                    table(ARM_HEADERS, measure_rows(measure, rows), left=ARM_LEFT), ""]
        out += [self.note(), "", title(f"top {self.top} locks by contended acquisitions, "
                                       "counts summed over each arm's processes"), "",
                table(SITE_HEADERS, site_rows(self.ranked, self.order, self.top), left=SITE_LEFT)]
        return "\n".join(out)

    def to_json(self):
        return {
            "schema": "lockswap-fleet", "schema_version": 1, "baseline": self.baseline,
            "grouped_by": "arm" if self.by_arm_object else "backend", "seed": self.seed,
            "metric_key": self.metric,
            "arms": [{"name": a, "processes": len(self.arms[a]),
                      "settings": self.arms[a][0].settings, **self.totals[a]} for a in self.order],
            "measures": [{**m.to_json(), "rows": rows} for m, rows in self.results],
            "processes": [{"file": p.path, "pid": p.pid, "arm": p.arm, **p.values}
                          for a in self.order for p in self.arms[a]],
            "sites": [{k: v for k, v in r.items() if k != "hist"}
                      for site, per_arm in self.ranked for r in per_arm if r is not None],
        }

    def csv_rows(self):
        return [(m.key, r["arm"], r["processes"], r["n"], r["median"], r["min"], r["max"],
                 r["ratio"], r["ci_low"], r["ci_high"], r["verdict"])
                for m, rows in self.results for r in rows]

    def write(self, prefix):
        md = "# lockswap report --by-arm\n\n" + self.render(
            output.md_table, title=lambda s: "## " + s)
        return [output.write_text(prefix + ".md", md),
                output.write_csv(prefix + ".csv", ("measure", "arm", "processes", "n", "median",
                                                   "min", "max", "ratio", "ci_low", "ci_high",
                                                   "verdict"), self.csv_rows()),
                output.write_json(prefix + ".json", self.to_json()),
                fleet_plot.draw(prefix + ".png", self.arms, self.results,
                                f"lockswap fleet: {len(self.procs)} processes, baseline "
                                f"{self.baseline}")]


def main(args):
    if args.out:
        output.check_prefix(args.out)
    comparison = Comparison(args)
    print(comparison.render(output.text_table))
    if args.out:
        print("\nwrote " + ", ".join(comparison.write(args.out)))
    return 0
