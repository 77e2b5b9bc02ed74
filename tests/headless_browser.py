"""Headless Chromium driven by Selenium (scripts/install_browser.sh installs both), for the tests that read a page."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PAGE_LOAD_SECONDS = 600  # a loaded 2-core machine; tests wait for what they need, never for a fixed time


@contextlib.contextmanager
def chromium(folder: Path):
    """A fresh headless Chromium with its profile and driver log in `folder`; fails the test where it is missing."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(f"the browser test needs Chromium and chromedriver; missing {', '.join(missing)}: "
                    "scripts/install_browser.sh")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={folder / 'profile'}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER, log_output=str(folder / "driver.log")))
    driver.set_page_load_timeout(PAGE_LOAD_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()
