#!/bin/sh
# Screenshots of every panel of the admin console, in JupyterLab's Light and Dark themes at
# 1400x900, of the console's Voila page as a browser preferring light or dark shows it, of
# the explore notebook as nbconvert renders it, and of the analytics report of the medium
# organization (its top and one view), and of scheduling the audit suite (the Create a notebook
# job form and the Notebook Jobs panel, in both themes), written into this folder. They are taken by the
# browser acceptance tests (which also check contrast, where each outcome appears and that
# the figures are drawn), so a run that fails says why.
set -eu
cd "$(dirname "$0")/../.."
CHATOPS_SCREENSHOTS=docs/screenshots exec .venv/bin/pytest -q -p no:cacheprovider \
    tests/browser/test_console_look.py tests/browser/test_console_page.py \
    tests/browser/test_invitations_grid.py tests/browser/test_notebook_render.py \
    tests/browser/test_analytics_report.py tests/browser/test_schedule_jobs.py "$@"
