"""STS data sets, pinned (commit and SHA-256 of each file) where their files are published.

STS Benchmark and SICK come from a named GitHub copy (``mirror``): pinnable where the original sites are not."""
from ...data.registry import DataFile, DataSource
from .parses import PARSES

_BMM = "https://raw.githubusercontent.com/bmmlab/compositional-semantics-eval/c310abbe8a50f38135a67939d3e71a878ef359bb"
_BMM_HOME = "https://github.com/bmmlab/compositional-semantics-eval"
_BMM_REV = "c310abbe8a50f38135a67939d3e71a878ef359bb"
_BMM_LICENSE = "no licence file; released with Fodor, De Deyne & Suzuki (2024), cite the paper"

STS3K = DataSource(
    name="sts3k",
    description="STS3k adversarial sentence similarity (2,800 pairs) with subset indices and stop list",
    homepage=_BMM_HOME,
    revision=_BMM_REV,
    license=_BMM_LICENSE,
    download_size=334_023,
    files=(
        DataFile("STS3k_all.txt", f"{_BMM}/Data-experiment/STS3k_all.txt",
                 "d3da29fbc353879fe839c29011c83604a9f86f6e02db60a49e1dfd2cd48db674"),
        DataFile("STS3k_adv_noneg_indices.txt", f"{_BMM}/Data-experiment/STS3k_adv_noneg_indices.txt",
                 "cbd3d4e291f4c62d106bc6a5faed5f89c014ef0e0de4e01ab9971f709fb9a9e6"),
        DataFile("STS3k_non_adv_indices.txt", f"{_BMM}/Data-experiment/STS3k_non_adv_indices.txt",
                 "2199bbb5ab5a220087775a381488edc9d071d2994a5f42d1db2971ca0efa1b27"),
        DataFile("stopwords.txt", f"{_BMM}/stopwords.txt",
                 "019f104ba2ed07436d05f9cdd3383034ad66014edc27fc651f837e1a038b6451"),
        DataFile("pilot/Fodor_pilot_2022.txt", f"{_BMM}/Data-experiment/Fodor_pilot_2022.txt",
                 "be83d7e65097f8f2c565710706724dc66104bd68240d3135ff4135bc26cd7656"),
    ),
)

_PROCESSED = tuple(
    DataSource(
        name=_name, description=_desc, homepage=_BMM_HOME, revision=_BMM_REV, license=_BMM_LICENSE,
        download_size=_size, files=(DataFile(_file, f"{_BMM}/Data-experiment/{_file}", _sha),),
    )
    for _name, _file, _sha, _size, _desc in [
    ("gs2011", "GS2011_processed.csv", "0487d0553ea3e2b62b1eb7ed071c931680d6ae52c74fcacb1bedb04bdb4c01e3", 13_246,
     "GS2011 transitive-verb sentence similarity (STS3k authors' processed copy)"),
    ("ks2013", "KS2013_processed.csv", "ca424625684e4fa31feebaf07607dcb8d5893829668ea8a7b0b5b7971f70a062", 7_009,
     "KS2013 SVO sentence similarity (STS3k authors' processed copy)"),
    ("stss131", "STS131_processed.csv", "caabb4601ae817c72cdf434e0b48e1cdf2e5a11c422ac1dedaca3cbc4f3f7d5a", 18_807,
     "STSS-131 dictionary-definition similarity (STS3k authors' processed copy)"),
])

_SYN = "https://raw.githubusercontent.com/amao0o0/SynWMD/59042a92e862db58bd01e47914345d2f52d2a4a3/data/downstream/STS/STSBenchmark/stsbenchmark"
STSB = DataSource(
    name="stsb",
    description="STS Benchmark (Cer et al. 2017), original tab-separated release",
    homepage="https://ixa2.si.ehu.eus/stswiki/index.php/STSbenchmark",
    mirror="https://github.com/amao0o0/SynWMD (third-party copy of the original release files)",
    download_size=1_439_276,
    revision="59042a92e862db58bd01e47914345d2f52d2a4a3",
    license="scores CC BY-SA 4.0; sentence sources under their own licences",
    files=(
        DataFile("sts-train.csv", f"{_SYN}/sts-train.csv", "0f71910b59aa1ad973c5897f0791f3b0965a92b8f82b1a95f3eea9f4162fda82"),
        DataFile("sts-dev.csv", f"{_SYN}/sts-dev.csv", "5d7e944d8b02734b07bfdb5df67db3420c64bed153fcaa1ba47ad03480cf4234"),
        DataFile("sts-test.csv", f"{_SYN}/sts-test.csv", "affe45928a66ee5a708531233c95b7dacbbdc57f974f002a3d32ea0180cf816a"),
    ),
)

SICK = DataSource(
    name="sick",
    description="SICK relatedness (Marelli et al. 2014), full original release",
    homepage="https://marcobaroni.org/composes/sick.html",
    mirror="https://github.com/kkalouli/SICK-processing (third-party copy of the full original release)",
    download_size=2_432_648,
    revision="0848f4aec60870122a4ca18de08ba0e25f6f9a75",
    license="CC BY-NC-SA 3.0",
    files=(
        DataFile("SICK.txt",
                 "https://raw.githubusercontent.com/kkalouli/SICK-processing/0848f4aec60870122a4ca18de08ba0e25f6f9a75/SICK.txt",
                 "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957"),
    ),
)

# Table 9's STSb-captions column: the authors' processed copy of the captions genre of the STS-B test split
# (``s1;s2;score``, scores already divided by 5), pinned with the other files of their repository.
STSB_CAPTIONS = DataSource(
    name="stsb-captions",
    description="STS-B test split, captions genre (624 pairs; STS3k authors' processed copy, scores 0–1)",
    homepage=_BMM_HOME, revision=_BMM_REV, license=f"{_BMM_LICENSE}; STS-B scores CC BY-SA 4.0",
    folder="stsb/fodor_processed", download_size=52_806,
    files=(DataFile("STSb_captions_test.txt", f"{_BMM}/Data-experiment/STSb_captions_test.txt",
                    "5495c797c9d8838607f303b5d2739e80de3533d2a5884fc5fc1509c1391e2792"),),
)

# STR-2022 (Abdalla, Vishnubhotla & Mohammad 2023). Its licence asks users not to redistribute it, so it is
# only ever downloaded from its own home at the pinned commit, never shipped or mirrored by compeval.
_STR_REV = "961f9a9be535f3299e4c0a7b0f656d583ba911ff"
STR2022 = DataSource(
    name="str2022",
    description="STR-2022 semantic textual relatedness (5,500 pairs, relatedness 0–1 from best–worst scaling)",
    homepage="https://github.com/Priya22/semantic-textual-relatedness",
    revision=_STR_REV,
    license="research use only, cite Abdalla, Vishnubhotla & Mohammad (2023); do not redistribute: "
            "downloaded from its home, never shipped with compeval",
    download_size=1_009_609,
    files=(DataFile("sem_text_rel_ranked.csv",
                    f"https://raw.githubusercontent.com/Priya22/semantic-textual-relatedness/{_STR_REV}/sem_text_rel_ranked.csv",
                    "2624f378bbd4793466c235720e6d6b386449c322f576667825bea3998dc66a9d"),),
)

#: What the registry reads (``compeval.data.registry``): importing this module registers nothing.
SOURCES = (STS3K, *_PROCESSED, STSB, SICK, STSB_CAPTIONS, STR2022, PARSES)
