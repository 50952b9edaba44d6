"""Your own hardware on the command line (cli/commands.py registers these; the window calls the same model code).

    main.py hardware export ID [-o FILE]       a catalogue entry as an editable hardware file
    main.py hardware check FILE                 is the file usable? (one line; exit 2 if not)
    main.py calibrate [--quick] [--json] [-o FILE] [--backend numpy|torch|auto]
    --hardware-file FILE (repeatable), --model-config FILE (repeatable): on every command
"""
from __future__ import annotations

import argparse
import json
import sys

from cli import UsageError, prog_name

EXISTS = ": choose another name with -o, or add --force to replace it"


def add_custom_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("your own hardware and models")
    g.add_argument("--hardware-file", action="append", default=[], metavar="FILE",
                   help="add the accelerator in this hardware file (repeatable; see docs/custom-hardware.md)")
    g.add_argument("--model-config", action="append", default=[], metavar="FILE",
                   help="add the model in this Hugging Face config.json, from the model's page on huggingface.co "
                        "(Files tab) (repeatable; used as --model unless given)")
    g.add_argument("--model-name", action="append", default=[], metavar="NAME",
                   help="the name of the model of each --model-config in turn (default: the config's "
                        "_name_or_path, else the file's or its folder's name)")


def apply_custom_flags(args: argparse.Namespace, argv: list[str]) -> None:
    """Install the files' entries into the default catalogue; a config's model becomes --model
    when no --model was given."""
    hw_files, configs = getattr(args, "hardware_file", None) or [], getattr(args, "model_config", None) or []
    names = getattr(args, "model_name", None) or []
    if len(names) > len(configs):
        raise UsageError("--model-name names the model of a --model-config: give the config too")
    if not hw_files and not configs:
        return                    # (file loading is imported only when there are files: estimate's start)
    from model.files.custom_catalog import install_files
    _, llms = install_files(hw_files, configs, names)
    if llms and hasattr(args, "model") and not any(a == "--model" or a.startswith("--model=") for a in argv):
        args.model = llms[-1].id


def add_commands(sub) -> None:
    hw = sub.add_parser("hardware", help="export or check a hardware file")
    hw_sub = hw.add_subparsers(dest="hardware_command", parser_class=type(hw))
    ex = hw_sub.add_parser("export", help="write a catalogue entry as an editable JSON file")
    ex.add_argument("id", help=f"GPU id or alias ({prog_name()} list gpus)")
    ex.add_argument("-o", "--output", metavar="FILE", help="write here (default, or -: standard output)")
    ex.add_argument("--force", action="store_true", help="replace FILE if it exists")
    add_custom_flags(ex)
    ck = hw_sub.add_parser("check", help="read a hardware file and say whether it is usable")
    ck.add_argument("file")
    add_custom_flags(ck)
    cal = sub.add_parser("calibrate", help="measure this machine and write a hardware file")
    cal.add_argument("--quick", action="store_true", help="small sizes, few repeats (seconds)")
    cal.add_argument("--json", action="store_true", help="print the measurements as JSON")
    cal.add_argument("-o", "--output", metavar="FILE", help="hardware file to write (default: this-machine-DATE.json; "
                                                            "-: standard output, the report on stderr)")
    cal.add_argument("--force", action="store_true", help="replace the output file if it exists")
    cal.add_argument("--backend", choices=("auto", "numpy", "torch"), default="auto",
                     help="auto: PyTorch when it sees a GPU, else numpy on the CPU")
    add_custom_flags(cal)


def cmd_hardware(args: argparse.Namespace) -> int:
    from model.catalog.active import default_catalog
    from cli.output import STDOUT, target, write_text
    from model.files.hardware_file import HardwareFileError, document_text, export_document, load_hardware_file
    if args.hardware_command == "export":
        out = target(args.output, "-o", overwrite=args.force, exists_hint=EXISTS) or STDOUT
        write_text(out, document_text(export_document(default_catalog().gpu(args.id))), overwrite=args.force)
        if out != STDOUT:
            print(f"wrote {out}: change its id and name, edit the numbers, then use it with "
                  f"--hardware-file {out}", file=sys.stderr)
        return 0
    if args.hardware_command == "check":
        hw, _ = load_hardware_file(args.file)
        print(f"{args.file}: usable, id '{hw.id}' ({hw.name})")
        return 0
    prog = prog_name()
    raise HardwareFileError(f"say what to do: {prog} hardware export ID | {prog} hardware check FILE")


def cmd_calibrate(args: argparse.Namespace) -> int:
    from cli.output import STDOUT, report_stream, target, write_text
    from model.machine import measure
    from model.files.hardware_file import HardwareFileError, document_text, save_hardware_file
    from model.readouts.machine_report import measured_document, report_json, report_text
    if args.backend == "torch" and not measure.gpu_available():
        raise HardwareFileError("--backend torch needs PyTorch and a GPU it can see (pip install -e .[calibrate])")

    import time
    out = target(args.output or f"this-machine-{time.strftime('%Y-%m-%d')}.json", "-o", overwrite=args.force,
                 exists_hint=EXISTS)

    from cli.progress import progress
    with progress("calibrate") as p:          # on stderr: a line on a terminal, a few lines in a log
        m = measure.run(quick=args.quick, backend=args.backend, progress=p)
    doc = measured_document(m)
    if out == STDOUT:                # the hardware file on stdout, the report on stderr
        write_text(out, document_text(doc))
    else:
        save_hardware_file(out, doc, overwrite=args.force)         # SafeIOError: one line
    said = report_stream(out)
    if args.json:
        print(json.dumps({**report_json(m), "hardware_file": str(out), "hardware_id": doc["id"]}, indent=2), file=said)
    else:
        print(report_text(m), file=said)
        where, name = ("standard output", "FILE") if out == STDOUT else (out, out)
        print(f"\nwrote {where} (id '{doc['id']}'): use it with --hardware-file {name} --gpu {doc['id']}", file=said)
    return 0
