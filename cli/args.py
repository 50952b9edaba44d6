"""What every command shares: one-line usage errors, whole-number flags, the scenario flags."""
from __future__ import annotations

import argparse
import math

from cli import COMMANDS, UsageError  # noqa: F401 (re-exported for the commands)
from model.catalog.active import default_efficiency
from model.physics.scenario import Scenario


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


def positive_int(name: str):
    def parse(text: str) -> int:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'") from None
        if not math.isfinite(value) or value != int(value):
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'")
        if abs(value) > 2 ** 53:
            raise argparse.ArgumentTypeError(f"{name} is far too large, got '{text}'")
        return int(value)
    return parse


def add_scenario_flags(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    d = Scenario()
    g = p.add_argument_group("scenario")
    g.add_argument("--gpu", default=d.gpu if defaults else None, help=f"GPU id or alias (default {d.gpu})")
    g.add_argument("--model", default=d.model if defaults else None, help=f"model id or alias (default {d.model})")
    g.add_argument("--precision", default=d.precision if defaults else None, help="fp32 bf16 fp16 fp8 int8 w8a16 int4 fp4")
    g.add_argument("--kv-precision", default=None, help="bf16 fp16 fp8 int8 int4 (default: follows --precision)")
    g.add_argument("--batch", type=positive_int("batch"), default=d.batch if defaults else None)
    g.add_argument("--gpus", type=positive_int("GPU count"), default=d.gpus if defaults else None)
    g.add_argument("--interconnect", default=d.interconnect if defaults else None, help="nvlink | pcie | network")
    g.add_argument("--input-len", type=positive_int("input length"), default=d.input_len if defaults else None)
    g.add_argument("--output-len", type=positive_int("output length"), default=d.output_len if defaults else None)
    g.add_argument("--phase", default=d.phase if defaults else None, help="decode | prefill")
    g.add_argument("--engine", default=d.engine if defaults else None, help=engine_help())


def engine_help() -> str:
    """The --engine help, from the engine table: every id, and the older versions (engine@version)."""
    table = default_efficiency()
    ids = [e for e in table.ids if e not in ("auto", "ideal")]
    text = "auto | ideal | " + " ".join(ids)
    if table.version_ids:
        text += "; older versions: " + " ".join(table.version_ids)
    return text + " (default auto: the engine most used on the GPU)"


def scenario_from_args(args, base=None):
    s = base or Scenario()
    changes = {k: getattr(args, k) for k in ("gpu", "model", "precision", "kv_precision", "batch", "gpus",
                                             "interconnect", "input_len", "output_len", "phase", "engine")
               if getattr(args, k, None) is not None}
    return s.with_(**changes)
