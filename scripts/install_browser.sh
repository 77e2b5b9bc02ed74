#!/usr/bin/env bash
# Installs what the class report's browser test (tests/test_class_report.py) needs
# from the distribution: Chromium and its WebDriver, /usr/bin/chromium and
# /usr/bin/chromedriver. As root it installs them; with password-less sudo it
# uses sudo; otherwise it says what to install and leaves the machine alone
# (the browser test then fails with the same advice).
set -u
missing=()
{ command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; } || missing+=(chromium)
{ command -v chromedriver >/dev/null 2>&1 || [ -x /usr/bin/chromedriver ]; } || missing+=(chromium-driver)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "Browser test: please install Chromium and chromedriver (${missing[*]}) with your distribution's package manager."
  exit 0
fi
if [ "$(id -u)" = 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else
  echo "Browser test: please install ${missing[*]} (e.g. sudo apt-get install ${missing[*]})."; exit 0
fi
if ! { "${sudo[@]}" apt-get update -qq >/dev/null \
       && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
  echo "Browser test: apt-get could not install ${missing[*]}; install them by hand."
fi
exit 0
