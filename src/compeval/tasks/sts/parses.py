"""Role (VerbNet) and AMR parses released with STS3k (Fodor, De Deyne & Suzuki 2024), pinned and hashed.

Only upstream files are registered: the CSV conversions and extracted GPT-4 JSON are derived locally."""
from ...data.registry import DataFile, DataSource

_REV = "c310abbe8a50f38135a67939d3e71a878ef359bb"
_RAW = f"https://raw.githubusercontent.com/bmmlab/compositional-semantics-eval/{_REV}/Data-model/Sentence%20Parses"

_VERBNET = {
    "full_VerbNet_pass_STS3k_all_mod.json": "26639989834759ef8798764a2088ea634ddb9e506013793c4475a398d5e4d810",
    "full_VerbNet_pass_STS3k_all_raw.json": "d1751d39cd5f3806e15244a4cfd231c2c452cc12d1f6ab5dd83dfbd097cd8631",
    "full_VerbNet_pass_Fodor_pilot_2022_mod.json": "2885fb9821fdd93a4d245b5440019da81c9079a28e373b34f27137facb9d51da",
    "full_VerbNet_pass_Fodor_pilot_2022_raw.json": "b0898e4112e31766eddfd476b9a77c7f3e045f59f1762ebbbdbfadee0d0b495a",
    "full_VerbNet_pass_GS2011_processed_mod.json": "ad8bee437505a860b51888c6141b129a6cf970408a8b37b1d1da115a715e7816",
    "full_VerbNet_pass_GS2011_processed_raw.json": "942601a00d6108b3a72bb6f6f93a756f10c04ee2ef893daef2a549ab62008ba8",
    "full_VerbNet_pass_STSb_captions_test_mod.json": "b02aabfc5a150c9f1782be93441692e0ca26f2ffa05e137b2ef733ac06fc9dd9",
    "full_VerbNet_pass_STSb_captions_test_raw.json": "121fbc53a623d0c44c051e213814af440c9de23f1d93dc27bdb9888718ae1bbd",
    "full_VerbNet_pass_STS131_processed_raw.json": "b82a39e836f1820135126388fa4cd917fb2cffe7f8bf07d903fead302411be77",
    "full_verbnet_pass_KS2013_processed_raw.json": "d35658afa7c33e7581ecfd975df11e33df8800162af607aa804090c2bb8ad8e3",
}

_AMR = {
    "STS3k_all_AMR_parse.json": "20c82dd067f0d7a5bb0a65a1a9bc6fb17dc5e43958984c9b1e4310d9de7b721c",
    "Fodor_pilot_2022_AMR_parse.json": "0641a90241842f2066165c287f1c76245fb5bf429c84c094d9e280493ddf0696",
    "GS2011_processed_AMR_parse.json": "8840964bc5e00f23796aa98298ab0836e17304122acfb6fa551e90b897449af8",
    "KS2013_processed_AMR_parse.json": "21e0bb18876e5ed72d30f3641e78e66d1c9cb2e6dcabd2cad548c0980feba80c",
    "STS131_processed_AMR_parse.json": "08f612470828f55efb2959e8cbfdfb1d52078e1a1fccec12c239e4702373edc5",
    "STSb_captions_test_AMR_parse.json": "7e8c07d8dde694d5724986c3c31b049099989204c4aeadd94d65c8f62fe68c06",
    "STSb_forums_test_AMR_parse.json": "cf2a1ef5cead2ace30b724d0473787dc88b2ebcd8ab4a26538f0fb3dc7888026",
    "STSb_test_AMR_parse.json": "1bdddd4267419f654a26f56230d384fa7f1996c28e18a6c43091cfda037ceb7c",
    # SICK has no JSON upstream snapshot; its two Penman text files (one per side) are complete.
    "SICK_relatedness_a_AMR_parse.txt": "7bad091e73a2c68dab2ba0026cdbfaf1785fc14b2388db7d306002d398256d89",
    "SICK_relatedness_b_AMR_parse.txt": "b02f6b83722bb5e468e9587ce848d1deb33cb23a71787e1b28395ec32caad767",
}

PARSES = (
    DataSource(
        name="sts3k-parses",
        folder="sts3k/parses",
        description="hand-corrected and raw VerbNet role parses, and amrlib AMR parses, of STS3k and the "
                    "comparison sets (Fodor et al. 2024)",
        homepage="https://github.com/bmmlab/compositional-semantics-eval",
        revision=_REV,
        license="no licence file; released with Fodor, De Deyne & Suzuki (2024), cite the paper",
        download_size=9_729_219,
        files=tuple(
            [DataFile(f"verbnet/{name}", f"{_RAW}/VerbNet%20Parsing/{name}", sha) for name, sha in _VERBNET.items()]
            + [DataFile(f"amr/{name}", f"{_RAW}/AMR%20Parsing/{name}", sha) for name, sha in _AMR.items()]
        ),
    )
)
