"""Asking a running formgrader (a Jupyter server the tests start) for a page."""

from __future__ import annotations

import time
import urllib.error
import urllib.request


def get_with_token(url: str, token: str, *, attempts: int = 600) -> tuple[int, str]:
    """GET with the token; while the server starts (no connection yet), try again, up to `attempts` times."""
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.5)
    raise AssertionError(f"the formgrader never answered {url}")
