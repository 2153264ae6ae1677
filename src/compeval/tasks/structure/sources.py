"""Extra STS3k files read by the structure analyses (participant ratings, modifier-type index lists).

Neither file exists upstream as such: upstream has the participant spreadsheet
``Data-experiment/STS3k_all_participant_data.xlsx`` and the notebook ``Check_split_half_reliability.ipynb``
that writes the index lists out inline. The long TSV and the JSON are derived locally (see the shared
``sts3k/SOURCE.md``), so the SHA-256 below is of the *local derived* file and the URL points at the
upstream original it was derived from; a download would fetch the xlsx / notebook and fail the hash
check, so these files must be supplied through ``--data-dir`` / ``COMPEVAL_DATA_DIR``.
"""
from ...data.registry import DataFile, DataSource, register_source

_REV = "c310abbe8a50f38135a67939d3e71a878ef359bb"
_RAW = f"https://raw.githubusercontent.com/bmmlab/compositional-semantics-eval/{_REV}"

register_source(
    DataSource(
        name="sts3k-ratings",
        description=("STS3k participant ratings as a long table (derived locally from the upstream xlsx) and the "
                     "modifier-type index lists of 242 added-modifier pairs (written out from an upstream notebook)"),
        homepage="https://github.com/bmmlab/compositional-semantics-eval",
        revision=_REV,
        license="no licence file; released with Fodor, De Deyne & Suzuki (2024), cite the paper",
        folder="sts3k",
        files=(
            DataFile("STS3k_ratings_long.tsv", f"{_RAW}/Data-experiment/STS3k_all_participant_data.xlsx",
                     "fe7efeb5c90fdcfc1c0134ebfca3932fe5fc5020ecbd6b426a2de355217aadaa"),
            DataFile("STS3k_only_mod_modifier_type_indices.json", f"{_RAW}/Check_split_half_reliability.ipynb",
                     "635d5dd79d72a65e80ce73c115aab443c3b9e7c62c0c0515927ca501b24b91e9"),
        ),
    )
)
