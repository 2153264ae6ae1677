"""Probing data: the Ettinger et al. (COLING 2018) task sets, pinned to commit d873151b (2020-04-25).

The SHA-256 of each unpacked file equals its member of ``compeval_datasets_and_code.tar.gz``."""
from ...data.registry import DataFile, DataSource

_REV = "d873151b46bbf14443e598eebf5a10c8e8495f67"
_RAW = f"https://raw.githubusercontent.com/aetting/aetting.github.io/{_REV}/compeval_datasets_and_code"

_TASK_FILES = (
    ("sr/train.txt", "281f3b9651eaa5b237acae4052cc392ced61e69fc55db3a7263e1c3adf3b449d"),
    ("sr/test.txt", "2fdd63f21d97152cdbdde46d9efddb16e1c266e40b2a2e1a913f2243d8c7be6e"),
    ("neg/train.txt", "a6f460fd094f7e9c15d68baf7d2976b48ef1d164f8ada5100e292afad65b75ff"),
    ("neg/test.txt", "9f6455a217bc1422d23c7f23885a0b075238f50e5e7df2c2fd04a0d248ade6e0"),
    ("cont1/train.txt", "9ba8029bbf341e3c9c9f9b3ba892c2278b760b09a6783fb8aecd80e9cd85abb5"),
    ("cont1/test.txt", "60edf19c4210dfebe4f703606526cf60ae42e6e29bd376f1d13b84342e5a5a6d"),
    ("cont2/train.txt", "323b2f1ae1e8e6146821ae8d68c5501c2f903153e8616dda5da2acbdc91247d2"),
    ("cont2/test.txt", "4c82eb27b7f994f7e181188d8ba3fc371b2fb0baf6f4722367ac75ac779a4f0b"),
    ("order/train.txt", "67101b029f90ee2db463265f2a38116a639cd35b6903d381a9e6f077f41ff47b"),
    ("order/test.txt", "919619ca7e158876997c476051406a1fe819cb6d55b8257d09d04033b41b687f"),
)

ETTINGER2018 = DataSource(
    name="ettinger2018_compeval",
    description="Ettinger et al. (2018) probing sets sr / neg / cont1 / cont2 / order (~4,000 train, "
                "1,000 test each) and the 14-lemma probe vocabulary",
    homepage="https://github.com/aetting/aetting.github.io",
    revision=_REV,
    license="no licence file; released with Ettinger, Elgohary, Phillips & Resnik (COLING 2018), cite the paper",
    download_size=2_336_208,
    files=tuple(DataFile(rel, f"{_RAW}/task_datasets/{rel}", sha) for rel, sha in _TASK_FILES)
    + (DataFile("vocab.txt", f"{_RAW}/classifier_code/vocab.txt",
                "4ef7a541c248b6391e45d916175e1d4a98cd9ddefc3597e928ef3e85acc01c39"),),
)

#: What the registry reads (``compeval.data.registry``): importing this module registers nothing.
SOURCES = (ETTINGER2018,)
