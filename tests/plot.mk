# tests/plot.mk -- the pictures and exports (predictor/plot/):
#   tests/plot/browser.sh   the pages rendered in headless Chromium: DOM and screenshot
#   tests/plot/exports.sh   CSV exports against ftio --json, bad input, ftio report errors
SHELL_TESTS += tests/plot/browser.sh tests/plot/exports.sh
