#!/usr/bin/env python3
"""The map page of a live `locus serve --http`, in headless Chromium driven by Selenium: what a
person sees, step by step, reported as JSON for the Swift test to compare with the engine.

Usage:
    map_page.py --base http://127.0.0.1:8080 --out DIR
                [--search "6132 ne 34" --expect "6132 NE 34th Ave"]
                [--click LON,LAT] [--csv FILE] [--drop FILE]

Steps, each followed by a screenshot in DIR (01-layers.png, 02-suggest.png, ...):
  1. open the page; the layers it lists and the polygons it draws of each;
  2. --search: type the text one key at a time; the suggestions shown once one contains
     --expect; ArrowDown and Enter pick the first; the candidate shown and its marker;
  3. --click: the map centred on the point, a real mouse click there; the reverse answer
     (frontage), then the method switched to nearest and the answer again; then frontage
     again, seen from further out (07-overview.png);
  4. --csv: the file opened with the page's file input; --drop: dropped on the map (a drop
     event carrying the file, as the browser makes one).

One JSON object on stdout:
    {"layers": [{"name", "shown", "paths"}], "info": {"built", "addresses", "text"},
     "suggestions": [str], "candidate": {"address", "lon", "lat", "score", "match_type",
     "explain": [str]}, "marker": {"lat", "lon"} | null,
     "reverse": {"frontage": R, "nearest": R}  with R = {"address", "lon", "lat", "match_type",
     "features": [{"layer", "name"}], "highlighted": int, "line": bool},
     "csv": B, "drop": B  with B = {"rows", "drawn", "failed", "markers", "failed_items": [str]},
     "console": [str], "screenshots": [str], "seconds": float}
Exit status 0 when every step ran, 1 when one timed out or failed (stderr says which), 2 on
bad arguments.
"""
import argparse
import json
import os
import sys
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--search")
    ap.add_argument("--expect", help="text a suggestion must contain before picking the first")
    ap.add_argument("--click", help="LON,LAT")
    ap.add_argument("--zoom", type=int, default=18, help="the zoom the click is made at")
    ap.add_argument("--overview-zoom", type=int, default=16, help="the zoom of the last screenshot of the answer")
    ap.add_argument("--csv")
    ap.add_argument("--drop")
    ap.add_argument("--timeout", type=float, default=20)
    args = ap.parse_args()
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            print(f"{path} is missing: scripts/setup --with-browser installs chromium and chromium-driver", file=sys.stderr)
            return 2

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    os.makedirs(args.out, exist_ok=True)
    # Chromium leaves an org.chromium.Chromium.* folder in $TMPDIR on every start; one folder
    # of our own, removed on exit, keeps test runs from filling /tmp.
    scratch = tempfile.TemporaryDirectory(prefix="locus-browser-")
    os.environ["TMPDIR"] = scratch.name
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1280,800", "--disable-extensions", "--no-first-run",
              "--user-data-dir=" + os.path.join(scratch.name, "profile")):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    started = time.time()
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    out = {"screenshots": [], "console": []}
    step = "open"
    try:
        wait = WebDriverWait(driver, args.timeout)

        def shot(name):
            path = os.path.join(args.out, name)
            driver.save_screenshot(path)
            out["screenshots"].append(path)

        def settled():
            # No request in flight and no refresh pending (the page debounces moves by 120 ms).
            time.sleep(0.3)
            wait.until(lambda d: d.execute_script("return document.body.dataset.pending === '0'"))

        driver.get(args.base + "/")
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
        settled()
        layers = []
        for li in driver.find_elements(By.CSS_SELECTOR, "#layers li"):
            name = li.get_attribute("data-layer")
            if not name:
                continue
            index = len(layers)
            layers.append({"name": name, "shown": int(li.get_attribute("data-shown") or 0),
                           "paths": len(driver.find_elements(By.CSS_SELECTOR, f"path.poly-layer-{index}"))})
        out["layers"] = layers
        out["info"] = {"built": driver.find_element(By.ID, "info-built").text,
                       "addresses": driver.find_element(By.ID, "info-addresses").text,
                       "text": driver.find_element(By.ID, "info").text}
        shot("01-layers.png")

        if args.search:
            step = "search"
            box = driver.find_element(By.ID, "search")
            box.click()
            for ch in args.search:
                box.send_keys(ch)
            expect = (args.expect or "").lower()
            # Read in one go: the list is redrawn on every keystroke's answer.
            shown = "return [...document.querySelectorAll('#suggestions li .text')].map(e => e.textContent)"
            wait.until(lambda d: any(expect in text.lower() for text in d.execute_script(shown)))
            settled()
            out["suggestions"] = driver.execute_script(shown)
            shot("02-suggest.png")
            box.send_keys(Keys.ARROW_DOWN)
            box.send_keys(Keys.ENTER)
            section = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#candidate[data-address]"))
            settled()
            out["candidate"] = {
                "address": section.get_attribute("data-address"),
                "lon": float(section.get_attribute("data-lon")), "lat": float(section.get_attribute("data-lat")),
                "score": float(section.get_attribute("data-score")), "match_type": section.get_attribute("data-match-type"),
                "explain": [li.text for li in section.find_elements(By.CSS_SELECTOR, ".explain li")],
            }
            icons = [e for e in driver.find_elements(By.CSS_SELECTOR, ".leaflet-marker-icon[alt=candidate]") if e.is_displayed()]
            at = driver.execute_script("const m = window.locusPage.candidateMarker; return m ? [m.getLatLng().lat, m.getLatLng().lng] : null")
            out["marker"] = {"lat": at[0], "lon": at[1]} if at and icons else None
            shot("03-geocode.png")
            # Escape closes nothing (the list is closed) and clears the candidate, so that its
            # marker is not what the next step clicks.
            box.send_keys(Keys.ESCAPE)

        if args.click:
            step = "click"
            lon, lat = (float(v) for v in args.click.split(","))
            driver.execute_script("window.locusPage.map.setView([arguments[0], arguments[1]], arguments[2], {animate: false})", lat, lon, args.zoom)
            settled()
            # A real click at the map's centre, which is the point (the map fills the window).
            ActionChains(driver).move_to_element(driver.find_element(By.ID, "map")).click().perform()
            out["reverse"] = {}
            for method in ("frontage", "nearest"):
                if method != "frontage":
                    driver.find_element(By.CSS_SELECTOR, f"input[name=method][value={method}]").click()
                wait.until(lambda d: d.execute_script(
                    "const s = document.querySelector('#reverse'); return s.dataset.method === arguments[0] && s.dataset.highlighted !== undefined && s.dataset.answered === arguments[0]",
                    method))
                settled()
                section = driver.find_element(By.ID, "reverse")
                answer = {
                    "address": section.get_attribute("data-address"),
                    "lon": float(section.get_attribute("data-lon") or "nan"), "lat": float(section.get_attribute("data-lat") or "nan"),
                    "match_type": section.find_element(By.CSS_SELECTOR, ".match-type").text if section.get_attribute("data-address") else None,
                    "features": [{"layer": li.get_attribute("data-layer"), "name": li.get_attribute("data-name")}
                                 for li in section.find_elements(By.CSS_SELECTOR, ".features li")],
                    "highlighted": int(section.get_attribute("data-highlighted")),
                    "line": len(driver.find_elements(By.CSS_SELECTOR, "path.reverse-line")) == 1,
                    "click": [float(section.get_attribute("data-click-lon")), float(section.get_attribute("data-click-lat"))],
                }
                out["reverse"][method] = answer
                shot(f"04-reverse-{method}.png")
            # Back to frontage, and the answer in its neighbourhood: the picture for the README.
            driver.find_element(By.CSS_SELECTOR, "input[name=method][value=frontage]").click()
            wait.until(lambda d: d.execute_script("return document.querySelector('#reverse').dataset.answered === 'frontage'"))
            driver.execute_script("window.locusPage.map.setView([arguments[0], arguments[1]], arguments[2], {animate: false})", lat, lon, args.overview_zoom)
            settled()
            shot("07-overview.png")

        def batch(name):
            summary = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"#batch-summary[data-file='{name}']"))
            settled()
            return {"rows": int(summary.get_attribute("data-rows")), "drawn": int(summary.get_attribute("data-drawn")),
                    "failed": int(summary.get_attribute("data-failed")),
                    "markers": len(driver.find_elements(By.CSS_SELECTOR, "path.batch-point")),
                    "failed_items": [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#failed li[data-line]")]}

        if args.csv:
            step = "csv"
            driver.execute_script("document.getElementById('batch-summary').removeAttribute('data-file')")
            driver.find_element(By.ID, "csv-file").send_keys(os.path.abspath(args.csv))
            out["csv"] = batch(os.path.basename(args.csv))
            shot("05-csv.png")

        if args.drop:
            step = "drop"
            with open(args.drop, encoding="utf-8") as f:
                text = f.read()
            driver.execute_script("""
                const [text, name] = arguments;
                document.getElementById('batch-summary').removeAttribute('data-file');
                const target = document.getElementById('map');
                const data = new DataTransfer();
                data.items.add(new File([text], name, {type: 'text/csv'}));
                target.dispatchEvent(new DragEvent('dragenter', {dataTransfer: data, bubbles: true, cancelable: true}));
                target.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
            """, text, os.path.basename(args.drop))
            out["drop"] = batch(os.path.basename(args.drop))
            shot("06-drop.png")

        step = "console"
        out["console"] = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        out["seconds"] = round(time.time() - started, 2)
    except Exception as e:  # a step that timed out: say which, with what the page showed
        try:
            driver.save_screenshot(os.path.join(args.out, f"failed-{step}.png"))
            logs = [e["message"] for e in driver.get_log("browser")]
        except Exception:
            logs = []
        print(f"step {step} failed: {type(e).__name__}: {e}\nconsole: {logs}", file=sys.stderr)
        return 1
    finally:
        driver.quit()
        scratch.cleanup()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
