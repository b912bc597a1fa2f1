"""The one table of CPUs and tiers (compiler/target.py): tiers numbered as the schema's, each
CPU's best tier and GCC flags per tier it runs, Target's checks and names."""
from __future__ import annotations

import pytest

from compiler.errors import TargetError
from compiler.schema import program_generated as fb
from compiler.target import CPU_TIERS, CPUS, TIERS, Cpu, Target, Tier


def test_tiers_are_the_schemas_in_its_order():
    schema = {n: v for n, v in vars(fb.Tier).items() if not n.startswith("_")}
    assert {t.name: t.number for t in Tier} == schema
    assert [t.number for t in TIERS] == sorted(schema.values()) and TIERS == ("scalar", "dsp", "mve")
    assert Tier.SCALAR < Tier.DSP < Tier.MVE and max(Tier) is Tier.MVE  # by number, not as strings
    assert Tier.of_number(fb.Tier.DSP) is Tier.DSP


def test_a_tier_is_the_name_users_type():
    assert Tier.parse("dsp") is Tier.DSP and Tier.MVE == "mve" and f"{Tier.MVE}" == "mve"
    assert {"mve": 1}[Tier.MVE] == 1  # keys of reports and tables stay plain names
    with pytest.raises(TargetError, match="unknown tier 'neon'; known: scalar, dsp, mve"):
        Tier.parse("neon")
    with pytest.raises(TargetError, match="unknown tier number 7"):
        Tier.of_number(7)


@pytest.mark.parametrize("cpu,best", [("cortex-m0", "scalar"), ("cortex-m0plus", "scalar"), ("cortex-m3", "scalar"),
                                      ("cortex-m23", "scalar"), ("cortex-m4", "dsp"), ("cortex-m7", "dsp"),
                                      ("cortex-m33", "dsp"), ("cortex-m35p", "dsp"), ("cortex-m55", "mve"),
                                      ("cortex-m85", "mve"), ("host", "scalar")])
def test_each_cpus_best_tier_and_the_tiers_it_runs(cpu, best):
    assert CPUS[cpu].best_tier == best == CPU_TIERS[cpu]
    assert CPUS[cpu].tiers == TIERS[: TIERS.index(best) + 1]
    assert set(CPUS[cpu].gcc_flags) == set(CPUS[cpu].tiers)


def test_gcc_flags_per_tier():
    m55, m85 = CPUS["cortex-m55"].gcc_flags, CPUS["cortex-m85"].gcc_flags
    assert (m55["mve"], m55["dsp"], m55["scalar"]) == (
        ("-mcpu=cortex-m55",), ("-mcpu=cortex-m55+nomve",), ("-mcpu=cortex-m55+nomve+nodsp",))
    # GCC 12 has no -mcpu=cortex-m85: the architecture with Helium and the FPU, tuned for the M55
    assert m85["mve"] == ("-march=armv8.1-m.main+mve.fp+fp.dp", "-mtune=cortex-m55")
    assert not any(f.startswith("-mcpu=cortex-m85") for flags in m85.values() for f in flags)
    assert CPUS["cortex-m4"].gcc_flags["scalar"] == ("-mcpu=cortex-m4", "-DEM_NN_FORCE_SCALAR")
    assert CPUS["host"].gcc_flags == {"scalar": ()}


def test_a_cpu_needs_flags_for_exactly_the_tiers_it_runs():
    with pytest.raises(TargetError, match="runs scalar, dsp"):
        Cpu("cortex-mx", Tier.DSP, {Tier.DSP: ("-mcpu=cortex-mx",)})


def test_target_takes_tier_names_and_checks_them():
    assert Target("cortex-m55").tier is Tier.MVE and Target("cortex-m55", "dsp").tier is Tier.DSP
    assert Target("cortex-m55", Tier.SCALAR).tier_index == fb.Tier.SCALAR
    with pytest.raises(TargetError, match="unknown CPU 'cortex-m99'; known: cortex-m0"):
        Target("cortex-m99")
    with pytest.raises(TargetError, match="cortex-m4 cannot run tier 'mve': its best is 'dsp'; choose one of: scalar, dsp"):
        Target("cortex-m4", "mve")
    with pytest.raises(TargetError, match="unknown tier 'neon'"):
        Target("cortex-m55", "neon")
