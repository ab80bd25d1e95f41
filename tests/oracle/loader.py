"""loader.py: runs the Firefox Profiler's own loader (@firefox-devtools/
profiler-cli, installed by scripts/tools.sh) for the oracle scripts.

One place for what each of them needs: the environment (a session
directory of the caller's own, so `stop --all` stops only its daemons; no
symbolication; a long load timeout; Node's compile cache), `load` with a
start-up that survives a busy machine, commands with --json, and stopping.

Why the waiting: `profiler-cli load` starts a daemon and gives it a fixed
500 ms to open its socket. On a loaded 2-core machine the daemon often
needs longer; the client then fails with "did not become ready", naming
the daemon's pid and its log. The daemon goes on starting and loading:
its log is watched until it says the profile loaded (its session is then
made the current one) or failed (an error, as the client would give). A
daemon that dies first is started again after a growing pause, up to
ATTEMPTS times. Before the first load
the loader is run once (`--version`) so Node's compile cache holds its
code, which makes every daemon after it start faster.
"""
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time

ATTEMPTS = 12


class LoaderError(RuntimeError):
    pass


def run(cmd, env=None, timeout=180, check=True):
    """Runs cmd; its stdout as text. check: a failure raises LoaderError."""
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if check and r.returncode != 0:
        raise LoaderError("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[:400]))
    return r


def _gone(pid, wait=10.0):
    """Waits up to `wait` seconds for process pid to end."""
    end = time.time() + wait
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        time.sleep(0.1)
    return False


def _start_failure(stderr):
    """True when a load failed only because the daemon started too slowly."""
    return ("did not become ready" in stderr or "still be running as pid" in stderr or
            "ECONNREFUSED" in stderr or "Socket not found" in stderr)


_warm = set()


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def _adopt(base, env, stderr, wait=300.0):
    """After a start that was too slow: the daemon the client gave up on
    usually goes on starting. Waits for its log to say the profile loaded
    (then makes its session the current one and returns its text), or
    failed (LoaderError), or for the daemon to die (None: start again)."""
    m = re.search(r"(\S+/([\w.-]+)\.log)", stderr)
    pm = re.search(r"as pid (\d+)", stderr)
    if not m or not pm:
        return None
    log, session, pid = m.group(1).rstrip(".,"), m.group(2), int(pm.group(1))
    end = time.time() + wait
    while time.time() < end:
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        if "Profile loaded successfully" in text:
            run(base + ["session", "use", session], env=env, timeout=120)
            return text
        if "Failed to load profile" in text:
            raise LoaderError("Profile load failed: " + text.split("Failed to load profile", 1)[1].strip()[:400])
        if not _alive(pid):
            return None
        time.sleep(0.25)
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
    _gone(pid)
    return None


def load(base, path, env):
    """`BASE load PATH` (base: ["node", CLI]) with env, waiting for or
    retrying a daemon that was slow to start. Returns (stdout, retries);
    raises LoaderError with the last error when it cannot be loaded."""
    cache = env.get("NODE_COMPILE_CACHE")
    if cache and cache not in _warm:
        run(base + ["--version"], env=env, timeout=120, check=False)
        _warm.add(cache)
    r = None
    retries = 0
    for attempt in range(ATTEMPTS):
        r = run(base + ["load", path], env=env, timeout=300, check=False)
        if r.returncode == 0:
            return r.stdout, retries
        if not _start_failure(r.stderr) or attempt == ATTEMPTS - 1:
            break
        retries += 1
        adopted = _adopt(base, env, r.stderr)
        if adopted is not None:
            return adopted, retries
        m = re.search(r"still be running as pid (\d+)", r.stderr)
        if m:
            try:
                os.kill(int(m.group(1)), signal.SIGTERM)
            except OSError:
                pass
            _gone(int(m.group(1)))
        time.sleep(min(1 + attempt, 8))
    raise LoaderError("profiler-cli load %s failed: %s" % (path, r.stderr.strip()[:400]))


def environment(work, base=None):
    """The loader's environment: base (default os.environ) with a session
    directory under work unless base names one, no symbolication, a long
    load timeout and Node's compile cache under work."""
    env = dict(base if base is not None else os.environ)
    env.setdefault("PROFILER_CLI_SESSION_DIR", os.path.join(work, "sessions"))
    env["PROFILER_CLI_NO_SYMBOLICATE"] = "1"
    # loading a large profile may take long on a busy machine
    env.setdefault("PROFILER_CLI_LOAD_TIMEOUT_MS", "60000")
    env.setdefault("NODE_COMPILE_CACHE", os.path.join(work, "node-compile-cache"))
    os.makedirs(env["PROFILER_CLI_SESSION_DIR"], exist_ok=True)
    return env


class Loader:
    """profiler-cli with its own session directory under `work`."""

    def __init__(self, cli, work, node="node"):
        self.base = [node, cli]
        env = dict(os.environ)
        env.pop("PROFILER_CLI_SESSION_DIR", None)  # always our own
        self.env = environment(work, env)
        self.retries = 0  # start-up retries so far (callers may print them)

    def __call__(self, *args, timeout=180):
        """A command's stdout; LoaderError when it fails."""
        return run(self.base + list(args), env=self.env, timeout=timeout).stdout

    def json(self, *args):
        return json.loads(self(*args, "--json"))

    def load(self, path):
        """Loads path, retrying a slow daemon start; LoaderError when it
        cannot be loaded (the last error)."""
        out, tries = load(self.base, path, self.env)
        self.retries += tries
        return out

    def stop_all(self):
        run(self.base + ["stop", "--all"], env=self.env, timeout=60, check=False)


def run_files(cli, work, files, check):
    """One loader for every file: check(loader, path, i) gives the lines to
    print, each starting with PASS or FAIL (an exception is one FAIL line).
    Prints them and a summary; returns the exit status, 1 when any failed.
    The drivers of tests/oracle and tests/cli share it."""
    os.makedirs(work, exist_ok=True)
    loader = Loader(cli, work)
    failures = 0
    try:
        for i, path in enumerate(files):
            try:
                lines = check(loader, path, i)
            except Exception as e:  # noqa: BLE001
                lines = ["FAIL %s: error: %s" % (path, e)]
            for line in lines:
                print(line)
                failures += line.startswith("FAIL")
            sys.stdout.flush()
    finally:
        loader.stop_all()
    print("%d files, %d failures" % (len(files), failures))
    return 1 if failures else 0


def cli_name(name, file):
    """The name profiler-cli's `thread functions` gives a function profkit
    names `name` (in `file`, "" if none): the command writes a function as
    "RESOURCE!NAME" and splits that at its first "!" into library and name,
    so a function without a resource whose own name holds a "!" (a V8
    RegExp: "RegExp: <(?:(!--|...") is shown by what follows it. The
    loader's profile keeps the name whole, as profkit does."""
    if not file and "!" in name:
        return name.split("!", 1)[1]
    return name


JS_NO_NAME = re.compile(r"^(.+?):([0-9]+)(?::([0-9]+))?(?:\[\d+\])?$")


def gecko_name(name):
    """The loader's name for the function profkit names `name` from a raw
    Gecko location string (docs/formats/gecko.md): a location "URL:LINE" or
    "URL:LINE:COL" (a script's top level) is, for profkit as FORMATS.md
    rules, a function named by the whole string; the loader names it
    "(root scope) URL" (the last URL of a "A -> B" chain)."""
    if name.startswith("0x") or " (" in name:
        return name
    m = JS_NO_NAME.match(name)
    return "(root scope) " + m.group(1).split(" -> ")[-1] if m else name


def loader_function_name(f, names):
    """A `thread functions --json` row f as one of profkit's function names
    (the set `names`), or as shown: the command writes "RESOURCE!NAME" and
    splits it at its first "!", so a function of a resource holding a "!"
    (a jar: URL) shows part of its resource before the name, and one
    without a resource whose name holds a "!" shows only what follows."""
    full = f["library"] + "!" + f["name"] if f.get("library") else f["name"]
    if full in names:
        return full
    for i, c in enumerate(full):  # RESOURCE!NAME: the name after some "!"
        if c == "!" and full[i + 1:] in names:
            return full[i + 1:]
    return f["name"]


def read_json(path):
    """A JSON file, gzipped or not."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def loadable(path, work):
    """path, or a copy in work the loader can load: it cannot load a raw
    Gecko file whose libs have no offset (it fails converting undefined to
    a BigInt), so such a copy has "offset": 0 added to each lib (as profkit
    reads a lib without one), nothing else changed."""
    d = read_json(path)
    changed = [False]

    def fix_libs(libs):
        for lib in libs if isinstance(libs, list) else []:
            if isinstance(lib, dict) and "offset" not in lib:
                lib["offset"] = 0
                changed[0] = True
        return libs

    def fix(prof):
        if isinstance(prof, str):  # a sub-process as JSON text
            return json.dumps(fix(json.loads(prof)))
        if not isinstance(prof, dict):
            return prof
        libs = prof.get("libs")
        if isinstance(libs, str):  # old profiles: the libs as JSON text
            prof["libs"] = json.dumps(fix_libs(json.loads(libs)))
        else:
            fix_libs(libs)
        for t in prof.get("threads", []) or []:
            if isinstance(t, dict) and "libs" in t:
                fix_libs(t["libs"])
        prof["processes"] = [fix(sub) for sub in prof.get("processes", []) or []]
        return prof

    if isinstance(d, dict) and "meta" in d and "shared" not in d:
        fix(d)
    if not changed[0]:
        return path
    out = os.path.join(work, "loadable-" + os.path.basename(path).replace(".gz", ""))
    with open(out, "w") as f:
        json.dump(d, f)
    return out
