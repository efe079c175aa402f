#!/usr/bin/python3
"""Test group "package": lockswap installed like the tools it sits beside.

- `make deb` builds build/lockswap_<version>_<arch>.deb holding the library
  in the multiarch folder, the command and its modules, the header, the .pc
  file and the man pages lockswap(1) and lockswap(7);
- dpkg --root installs it into a scratch root; from there `lockswap run --
  true` runs, a program preloaded with the installed library is served by
  the default backend, `man lockswap` shows LOCKSWAP_BACKEND and
  `man 7 lockswap` every option the library lists; dpkg --root removes it
  without leaving a file;
- lintian finds nothing the package's overrides do not explain (where
  lintian is installed: `apt-get install lintian`; it is not in
  scripts/install-deps.sh, whose CI run it would lengthen by about two
  minutes);
- `make install` honours LIBDIR and MANDIR, and the installed command finds
  its library in LIBDIR;
- the man pages are written from the library's description: every backend
  and option it lists is in them, every flag of every subcommand is in
  lockswap(1), and an option the description gains appears with nothing
  else changed; groff reads them without a warning.

Prints ok/FAIL lines and ends with `package: N passed, M failed`.
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
B = os.environ.get("B", "build")
B = B if os.path.isabs(B) else os.path.join(REPO, B)
sys.path.insert(0, os.path.join(REPO, "scripts"))
from lockswap_cli import library, main, manpage  # noqa: E402

passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {what}")
    else:
        failed += 1
        print(f"FAIL - {what}" + (f": {detail}" if detail else ""))
    return ok


def sh(*cmd, env=None, cwd=REPO, timeout=300):
    return subprocess.run(list(cmd), capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    env.pop("LD_PRELOAD", None)
    env.update(extra)
    return env


def describe():
    return library.load(os.path.join(REPO, "liblockswap.so")).describe()


MULTIARCH = sh("gcc", "-print-multiarch").stdout.strip() or "x86_64-linux-gnu"
LIBDIR = f"/usr/lib/{MULTIARCH}"


def build_deb():
    p = sh("make", "-s", "deb", f"B={B}")
    path = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    version = describe()["version"]
    arch = sh("dpkg", "--print-architecture").stdout.strip()
    want = os.path.join(B, f"lockswap_{version}_{arch}.deb")
    report(p.returncode == 0 and path == want and os.path.isfile(want),
           f"make deb builds {os.path.relpath(want, REPO)}", p.stderr[-500:] + p.stdout[-200:])
    return want if os.path.isfile(want) else None


def contents(deb):
    p = sh("dpkg-deb", "-c", deb)
    files = {line.split()[-1].lstrip(".") for line in p.stdout.splitlines()}
    want = [f"{LIBDIR}/liblockswap.so", f"{LIBDIR}/liblockswap-native.a",
            f"{LIBDIR}/pkgconfig/lockswap.pc", "/usr/bin/lockswap",
            "/usr/share/lockswap/lockswap_cli/main.py", "/usr/include/lockswap.h",
            "/usr/share/man/man1/lockswap.1.gz", "/usr/share/man/man7/lockswap.7.gz",
            "/usr/share/doc/lockswap/copyright", "/usr/share/doc/lockswap/changelog.gz"]
    missing = [f for f in want if f not in files]
    report(not missing, "the package holds the library in the multiarch folder, the command "
           "and its modules, the header, the .pc file and both man pages", f"missing {missing}")
    modules = {os.path.basename(f) for f in glob.glob(os.path.join(REPO, "scripts", "lockswap_cli",
                                                                  "*.py"))}
    packed = {os.path.basename(f) for f in files
              if f.startswith("/usr/share/lockswap/lockswap_cli/") and not f.endswith("/")}
    report(modules == packed, "every module of the command is in the package, nothing else",
           f"left out {sorted(modules - packed)}, extra {sorted(packed - modules)}")
    info = sh("dpkg-deb", "-f", deb, "Depends").stdout
    report(re.search(r"libc6 \(>= 2\.[0-9]+\)", info) and "python3-numpy" in info
           and "python3-pyelftools" in info,
           "Depends names libc6's version, the command's interpreter, numpy and pyelftools", info)


def dpkg_root(root, *args):
    # --path-include: a machine whose dpkg configuration leaves out man pages
    # and docs (minimal container images) must still install ours here.
    flags = [f"--root={root}", "--force-depends", "--log=/dev/null",
             "--path-include=/usr/share/man/*", "--path-include=/usr/share/doc/lockswap/*"]
    if os.geteuid() != 0:
        flags += ["--force-not-root", "--force-bad-path"]
    return sh("dpkg", *flags, *args)


def scratch_root(tmp):
    root = os.path.join(tmp, "root")
    for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"):
        os.makedirs(os.path.join(root, d))
    open(os.path.join(root, "var/lib/dpkg/status"), "w").close()
    return root


def installed(deb, tmp):
    root = scratch_root(tmp)
    p = dpkg_root(root, "-i", deb)
    if not report(p.returncode == 0, "dpkg --root installs the package into a scratch root",
                  p.stderr[-500:]):
        return
    cli = os.path.join(root, "usr", "bin", "lockswap")
    lib = os.path.join(root, LIBDIR.lstrip("/"), "liblockswap.so")
    env = clean_env()
    p = sh(cli, "run", "--", "true", env=env, cwd="/")
    report(p.returncode == 0 and p.stderr == "", "installed: lockswap run -- true",
           f"exit {p.returncode}: {p.stderr[-300:]}")
    p = sh(cli, "run", "--", "printenv", "LD_PRELOAD", env=env, cwd="/")
    report(p.stdout.strip() == lib, "installed: the command preloads the installed library",
           p.stdout + p.stderr)
    p = sh(cli, "list", env=env, cwd="/")
    report(p.returncode == 0 and f"({lib})" in p.stdout and "(default)" in p.stdout,
           "installed: lockswap list reads the installed library", p.stderr[-300:])
    default = next(o["default"] for o in describe()["options"] if o["name"] == "LOCKSWAP_BACKEND")
    prog = os.path.join(B, "preload", "kinds")
    p = sh(prog, env=clean_env(LD_PRELOAD=lib), cwd="/")
    report(p.returncode == 0 and f"(backend {default})" in p.stdout,
           f"installed: a program preloaded from {LIBDIR} runs under the default, {default}",
           p.stdout[-300:] + p.stderr[-300:])
    man_env = clean_env(MANPATH=os.path.join(root, "usr", "share", "man"), MANWIDTH="100",
                        MANPAGER="cat", PAGER="cat")
    if shutil.which("man"):
        p = sh("man", "lockswap", env=man_env)
        report(p.returncode == 0 and "LOCKSWAP_BACKEND" in p.stdout and "lockswap run" in p.stdout,
               "installed: man lockswap shows the commands and LOCKSWAP_BACKEND", p.stderr[-300:])
        p = sh("man", "7", "lockswap", env=man_env)
        names = [o["name"] for o in describe()["options"]]
        missing = [n for n in names if n not in p.stdout]
        report(p.returncode == 0 and not missing, "installed: man 7 lockswap shows every option",
               f"missing {missing} {p.stderr[-200:]}")
    else:
        report(True, "man-db not installed: man lockswap not read (the pages are checked below)")
    p = dpkg_root(root, "-r", "lockswap")
    left = [f for f in glob.glob(os.path.join(root, "usr", "**"), recursive=True)
            if os.path.isfile(f) or os.path.islink(f)]
    report(p.returncode == 0 and not left, "dpkg --root removes the package without a file left",
           f"{p.stderr[-300:]} left {left[:5]}")


def lintian(deb):
    if not shutil.which("lintian"):
        report(True, "lintian not installed: not run (apt-get install lintian; "
               "pkg/deb/lintian-overrides explains the tags it reports)")
        return
    args = ["lintian", "--pedantic", "-I", "--fail-on", "error,warning,info,pedantic"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    p = sh(*args, deb, timeout=600)
    tags = [l for l in p.stdout.splitlines() if re.match(r"^[EWIPX]: ", l)]
    report(p.returncode == 0 and not tags, "lintian: no tag but those pkg/deb/lintian-overrides "
           "explains", "\n".join(tags[:10]) + p.stderr[-300:])


def make_install(tmp):
    dest = os.path.join(tmp, "dest")
    p = sh("make", "-s", "install", f"B={B}", f"DESTDIR={dest}", "PREFIX=/opt/ls",
           "LIBDIR=/opt/ls/lib64", "MANDIR=/opt/ls/man")
    if not report(p.returncode == 0, "make install with LIBDIR and MANDIR", p.stderr[-500:]):
        return
    want = ["opt/ls/lib64/liblockswap.so", "opt/ls/lib64/liblockswap-native.a",
            "opt/ls/lib64/pkgconfig/lockswap.pc", "opt/ls/man/man1/lockswap.1",
            "opt/ls/man/man7/lockswap.7", "opt/ls/bin/lockswap", "opt/ls/include/lockswap.h"]
    missing = [w for w in want if not os.path.isfile(os.path.join(dest, w))]
    report(not missing, "make install puts the library in LIBDIR and the pages in MANDIR",
           f"missing {missing}")
    with open(os.path.join(dest, "opt/ls/lib64/pkgconfig/lockswap.pc")) as f:
        pc = f.read()
    report("libdir=/opt/ls/lib64" in pc, "lockswap.pc names LIBDIR", pc)
    with open(os.path.join(dest, "opt/ls/man/man7/lockswap.7")) as f:
        page = f.read()
    report("LD_PRELOAD=/opt/ls/lib64/liblockswap.so" in page.replace("\\-", "-"),
           "the installed lockswap(7) names the library's place in LIBDIR")
    p = sh(os.path.join(dest, "opt/ls/bin/lockswap"), "run", "--", "printenv", "LD_PRELOAD",
           env=clean_env(), cwd="/")
    report(p.stdout.strip() == os.path.join(dest, "opt/ls/lib64/liblockswap.so"),
           "the installed command finds its library in LIBDIR", p.stdout + p.stderr)


def pages(desc):
    top = main.build_parser(main.load_modules())
    subs = next(a for a in top._actions if a.__class__.__name__ == "_SubParsersAction")
    lib = library.load(os.path.join(REPO, "liblockswap.so"))
    one = manpage.page1(top, dict(subs.choices), desc, "v", "", LIBDIR)
    seven = manpage.page7(desc, "v", "", LIBDIR, full_name=lib.backend_name)
    return top, subs, one, seven


def plain(roff):
    return roff.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")


def man_pages(tmp):
    desc = describe()
    top, subs, one, seven = pages(desc)
    one_t, seven_t = plain(one), plain(seven)
    names = [b["name"] for b in desc["backends"]] + [b["name"] for b in desc["rwlock_backends"]]
    opts = [o["name"] for o in desc["options"]]
    missing = [n for n in names + opts if f"\n{n}" not in seven_t and f"\n{n} " not in seven_t]
    report(not missing, "lockswap(7): an entry for every backend, rwlock backend and option "
           "the library lists", f"missing {missing}")
    env = seven_t.split("\n.SH ENVIRONMENT", 1)[-1]
    rows = [o for o in desc["options"]
            if not re.search(re.escape(f"Default {o['default'] or '(none)'}") + "[;.]",
                             env.split(f"\n{o['name']} ", 1)[-1].split("\n.TP", 1)[0])]
    report(not rows, "lockswap(7): each option with the library's default",
           f"{[o['name'] for o in rows]}")
    flags = [(name, o) for name, sub in subs.choices.items() for a in sub._actions
             for o in a.option_strings]
    missing = [f"{n} {o}" for n, o in flags if o not in one_t]
    report(not missing and all(f"lockswap {n}" in one_t for n in subs.choices),
           "lockswap(1): every subcommand and every flag of its parser", f"missing {missing[:8]}")
    report(all(n in one_t for n in opts), "lockswap(1): every LOCKSWAP_* name under ENVIRONMENT")
    grown = json.loads(json.dumps(desc))
    grown["options"].append({"name": "LOCKSWAP_SOMETHING_NEW", "kind": "uint", "default": "7",
                             "min": 1, "max": 9, "choices": "", "help": "an option added later"})
    grown["backends"].append({"name": "newlock", "about": "a backend added later"})
    _, _, one2, seven2 = pages(grown)
    report("LOCKSWAP_SOMETHING_NEW" in plain(seven2) and "an option added later" in seven2
           and "newlock" in plain(seven2) and "LOCKSWAP_SOMETHING_NEW" in plain(one2),
           "an option and a backend the description gains appear in both pages")
    for name, text in (("lockswap.1", one), ("lockswap.7", seven)):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        p = sh("groff", "-man", "-Tutf8", "-ww", "-z", path)
        report(p.returncode == 0 and not p.stderr.strip(), f"groff reads {name} without a warning",
               p.stderr[-400:])


def main_():
    with tempfile.TemporaryDirectory(prefix="lockswap-package-") as tmp:
        try:
            man_pages(tmp)
        except Exception as e:  # a crash in one part must not hide the others
            report(False, "man pages", repr(e))
        deb = build_deb()
        if deb:
            for part in (contents, lambda d: installed(d, tmp), lintian):
                try:
                    part(deb)
                except Exception as e:
                    report(False, f"package: {getattr(part, '__name__', 'part')}", repr(e))
        try:
            make_install(tmp)
        except Exception as e:
            report(False, "make install", repr(e))
    print(f"package: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main_())
