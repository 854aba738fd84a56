#!/usr/bin/python3
# serve_browser.py: the web analysis board in headless Chromium (Debian's
# chromium + chromium-driver, driven over chromedriver's WebDriver HTTP API
# with the standard library).  Starts `dab serve` and chromedriver, opens
# the board, clicks lines and checks that every value shown equals
# `dab solve` for the same position; URL round trip, undo/redo, keyboard,
# a player move, a bad pasted position, a searched board, a phone-sized
# window.  Usage: serve_browser.py [--screenshot PNG]   (run by
# tests/test_serve_browser.sh).  Ends with "test_serve_browser: N passed, M failed".
import base64, json, os, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAB = os.environ.get("DAB_BIN", os.path.join(ROOT, "bin", "dab"))
CHROME = os.environ.get("DAB_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("DAB_CHROMEDRIVER", "/usr/bin/chromedriver")
passed = failed = 0


def check(desc, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {desc} {detail}", file=sys.stderr, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def http(method, url, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{method} {url}: {e.code} {e.read()[:300]!r}")


class Browser:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROME,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1100,820", "--hide-scrollbars"]}}}}
        self.sid = http("POST", self.base + "/session", caps, timeout=90)["value"]["sessionId"]
        self.s = f"{self.base}/session/{self.sid}"

    def cmd(self, method, path, body=None):
        return http(method, self.s + path, body)["value"] if method != "DELETE" else http(method, self.s + path)

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def go(self, url):
        self.cmd("POST", "/url", {"url": url})
        self.ready()

    def ready(self, timeout=30):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.js("return document.body.dataset.state") == "ready":
                return True
            time.sleep(0.05)
        return False

    def find(self, css):
        v = self.cmd("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(v.values()))

    def click(self, css):
        self.cmd("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css, text):
        e = self.find(css)
        self.cmd("POST", f"/element/{e}/clear", {})
        self.cmd("POST", f"/element/{e}/value", {"text": text})

    def keys(self, text):
        acts = []
        for ch in text:
            acts += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": acts}]})

    def shown(self):
        """The values the board shows: {line: value}, the best lines, the position value."""
        return self.js("""
            const v = {}, best = [];
            for (const g of document.querySelectorAll('#board .line.undrawn')) {
              if (g.dataset.value !== undefined) v[g.dataset.line] = +g.dataset.value;
              if (g.classList.contains('best')) best.push(+g.dataset.line);
              const t = g.querySelector('.val');
              if (t && t.textContent.replace('+', '') !== String(g.dataset.value)) v['label' + g.dataset.line] = t.textContent;
            }
            const pv = document.getElementById('value').dataset.value;
            return {values: v, best: best.sort((a, b) => a - b), value: pv === undefined ? null : +pv,
                    undrawn: document.querySelectorAll('#board .line.undrawn').length,
                    pos: document.getElementById('pos').value, url: location.search,
                    exact: document.getElementById('exact').textContent,
                    error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent};""")

    def screenshot(self, path):
        png = base64.b64decode(self.cmd("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)

    def quit(self):
        try:
            http("DELETE", self.s)
        except Exception:
            pass


def solve(pos):
    out = subprocess.run([DAB, "solve", pos, "--json", "--no-store"], capture_output=True, text=True, timeout=60)
    d = json.loads(out.stdout)
    return {str(m["move"]): m["value"] for m in d["moves"]}, sorted(d["best"]), d["value"]


def same_as_solve(b, pos, what):
    s = b.shown()
    want, best, value = solve(pos)
    check(f"{what}: position text is {pos}", s["pos"] == pos, s["pos"])
    check(f"{what}: every undrawn line shows dab solve's value", s["values"] == want and s["undrawn"] == len(want),
          f"shown {s['values']} want {want}")
    check(f"{what}: best lines highlighted", s["best"] == best, f"{s['best']} vs {best}")
    check(f"{what}: position value", s["value"] == value, f"{s['value']} vs {value}")
    return s


def main():
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    for exe, name in ((CHROME, "chromium"), (DRIVER, "chromium-driver")):
        if not os.access(exe, os.X_OK):
            print(f"test_serve_browser: {exe} missing: install Debian's {name} (./build.sh does)", file=sys.stderr)
            print("test_serve_browser: 0 passed, 1 failed")
            return 1
    tmp = tempfile.mkdtemp(prefix="dab-browser-")
    env = dict(os.environ)
    if not shot:   # no tables from elsewhere: boards up to 24 lines from memory, others searched
        env.update(DAB_TB_PATH=os.path.join(tmp, "tb"), XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        os.makedirs(env["DAB_TB_PATH"])
    os.environ.update(env)
    serve = subprocess.Popen([DAB, "serve", "--port", "0", "--search-node-limit", "400000"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=env)
    line = serve.stdout.readline()
    url = line.split("listening on ")[1].split()[0] if "listening on" in line else None
    check("dab serve prints its URL", url is not None, line)
    dport = free_port()
    driver = subprocess.Popen([DRIVER, f"--port={dport}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = None
    try:
        for _ in range(100):
            try:
                if http("GET", f"http://127.0.0.1:{dport}/status", timeout=2)["value"]["ready"]:
                    break
            except Exception:
                time.sleep(0.1)
        b = Browser(dport)
        b.go(url + "?pos=3x3")
        same_as_solve(b, "3x3", "open 3x3")
        b.click('#board .line[data-line="0"]')
        check("click: analysis arrives", b.ready())
        b.click('#board .line[data-line="5"]')
        check("click: analysis arrives", b.ready())
        s = same_as_solve(b, "3x3@0,5", "after two clicks")
        check("URL holds the position", urllib.parse.unquote(s["url"]) == "?pos=3x3@0,5", s["url"])
        b.click("#undo")
        b.ready()
        same_as_solve(b, "3x3@0", "undo")
        b.click("#redo")
        b.ready()
        same_as_solve(b, "3x3@0,5", "redo")
        b.keys("u")
        b.ready()
        check("key u undoes", b.shown()["pos"] == "3x3@0")
        b.keys("r")
        b.ready()
        check("key r redoes", b.shown()["pos"] == "3x3@0,5")
        # keyboard: focus a line, Enter draws it
        b.js("document.querySelector('#board .line[data-line=\"12\"]').focus()")
        b.keys("\ue007")
        b.ready()
        same_as_solve(b, "3x3@0,5,12", "Enter on a focused line")
        # URL round trip: the page's URL opened afresh shows the same board
        here = b.js("return location.href")
        b.go(url + "?pos=" + urllib.parse.quote("2x3@0,1,2"))
        same_as_solve(b, "2x3@0,1,2", "URL ?pos=2x3@0,1,2")
        b.go(here)
        same_as_solve(b, "3x3@0,5,12", "URL round trip")
        # DBN pasted in the position box
        b.type("#pos", "3x3:111001110110110101100000")
        b.click('#posform button[type="submit"]')
        b.ready()
        same_as_solve(b, "3x3:111001110110110101100000", "pasted DBN")
        # a bad pasted position: an error naming the problem, the board unchanged
        b.type("#pos", "3x3:0101")
        b.click('#posform button[type="submit"]')
        s = b.shown()
        check("bad pasted position: error shown", "DBN has 4 digits" in s["error"], s["error"])
        b.type("#pos", "3x3@0,0")
        b.click('#posform button[type="submit"]')
        check("repeated move: error shown", "twice" in b.shown()["error"])
        # a player moves
        b.go(url + "?pos=3x3@0,5")
        b.type("#player", "chain")
        b.type("#seed", "7")
        b.click('#playerform button[type="submit"]')
        t0 = time.time()
        while time.time() - t0 < 20 and len(b.shown()["pos"].split(",")) < 3:
            time.sleep(0.05)
        b.ready()
        s = b.shown()
        check("player move: one more line", s["pos"].startswith("3x3@0,5,") and len(s["pos"].split(",")) == 3, s["pos"])
        same_as_solve(b, s["pos"], "after the player's move")
        b.type("#player", "nosuch")
        b.click('#playerform button[type="submit"]')
        time.sleep(0.5)
        check("bad player spec: error shown", "unknown player" in b.shown()["error"], b.shown()["error"])
        # a searched board (no table for 4x4): exact or not, said
        late = "4x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"
        b.go(url + "?pos=" + late)
        s = same_as_solve(b, late, "searched 4x4")
        check("searched 4x4: marked exact", s["exact"] == "exact", s["exact"])
        b.go(url + "?pos=4x4")
        check("4x4 over the node budget: marked not exact", b.shown()["exact"] == "not exact", b.shown()["exact"])
        # size selector: a 7x7 board is drawn (no values: over 64 lines)
        b.js("document.getElementById('rows').value = 7; document.getElementById('cols').value = 7;")
        b.click('#sizeform button[type="submit"]')
        b.ready()
        s = b.shown()
        check("7x7: 112 lines drawn, no values", s["undrawn"] == 112 and not s["values"] and s["pos"] == "7x7", s["pos"])
        # a phone-sized window: nothing wider than the screen
        b.cmd("POST", "/window/rect", {"width": 390, "height": 844})
        b.go(url + "?pos=3x3@0,5")
        wide = b.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        check("phone width: no horizontal scrolling", wide[0] <= wide[1], wide)
        if shot:
            b.cmd("POST", "/window/rect", {"width": 1100, "height": 760})
            b.go(url + "?pos=" + urllib.parse.quote(shot_pos))
            time.sleep(0.3)
            b.screenshot(shot)
            print(f"screenshot: {shot}")
    except Exception as e:
        check("browser session", False, repr(e))
    finally:
        if b:
            b.quit()
        driver.terminate()
        serve.terminate()
        driver.wait(10)
        serve.wait(10)
    print(f"test_serve_browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


shot_pos = "3x4@0,5,17,12,26,30,9,21"
if __name__ == "__main__":
    sys.exit(main())
