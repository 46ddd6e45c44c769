"""The ``npu-bridge-check`` command: what would stop scripts in the TF1 mode, and an exit code.

It never ends with a traceback: a failure of the check itself is reported
in one line and exits 2 (``report.EXIT_CODES``).
"""

import argparse
import sys

from npu_bridge.migration_check import report
from npu_bridge.migration_check.check import check_paths
from npu_bridge.migration_check.resolver_client import ResolverUnavailable


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="npu-bridge-check",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Say what would stop TensorFlow 1.15 scripts in npu_bridge's TF1 mode "
                    "(npu-bridge-run), without running them: names of TensorFlow, tf.contrib, "
                    "Keras, numpy, npu_bridge and hccl that are missing, that exist but do not "
                    "work, or calls whose arguments are rejected; Python 2 code; files Python "
                    "cannot read.",
        epilog="exit codes:\n" + "\n".join("  %d  %s" % pair for pair in report.EXIT_CODES))
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".py files or folders")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--no-imports", action="store_true",
                        help="check only the files named, not the modules of their folder "
                             "they import")
    return parser.parse_args(argv)


def main(argv=None, out=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    try:
        reports = check_paths(args.paths, follow_imports=not args.no_imports)
    except KeyboardInterrupt:
        sys.stderr.write("npu-bridge-check: interrupted\n")
        return 130
    except ResolverUnavailable as err:
        sys.stderr.write("npu-bridge-check: could not check: %s\n" % err)
        return 2
    except Exception as err:  # noqa: BLE001 (exit 2 with one line, never a traceback)
        sys.stderr.write("npu-bridge-check: the check itself failed: %s: %s\n"
                         % (type(err).__name__, err))
        return 2
    if args.json:
        report.write_json(reports, out)
    else:
        report.write_text(reports, out)
    return report.exit_code(reports)
