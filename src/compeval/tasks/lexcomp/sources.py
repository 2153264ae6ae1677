"""Lexical composition data (Shwartz & Dagan, TACL 2019), pinned to lexcomp commit 7f25d55 (2019-10-29).

VPC and LVC files hold BNC sentence ids only: their text comes from the user's BNC copy (``lexcomp.bnc``)."""
from ...data.registry import DataFile, DataSource

_REV = "7f25d5505294bcc1b6b6ff26ff43fe989154966e"
_RAW = f"https://raw.githubusercontent.com/vered1986/lexcomp/{_REV}/diagnostic_classifiers/data"

_FILES = (
    ("an_attribute_selection/test.jsonl", "2196a570a1faf90f96f3dfbad34dfc02514e79e87023d166883633142efa55fa"),
    ("an_attribute_selection/train.jsonl", "e6a25e95df5831204db4552d0e33dacfa4372e6739421fb6dda57a90fbe19652"),
    ("an_attribute_selection/val.jsonl", "8092b1684034dacbdd056b9654382d15e6be9847ab892f7ce1bdead82c692eae"),
    ("lvc_classification/ids_test.jsonl", "6bc68653f7f6b868e6e176ff91d5b032a0dd191d35f7a00a7e4a979af32f2857"),
    ("lvc_classification/ids_train.jsonl", "f7c52ad1d664bd3e0d1914a9c6cd3342d3e6c347e768968270526074e13e861f"),
    ("lvc_classification/ids_val.jsonl", "6c74035b6a4466a9a10cb1bfa8925ea4286ce01329cb0106d0accb430829ee5e"),
    ("mwe_type/test.jsonl", "ef1a96fc6f6c24a863332d2017957a8c8119230906952d60f3eb591e87fc44bf"),
    ("mwe_type/train.jsonl", "0542cf7d61b5f5d05f7c3a838c8ff48da368f398ad154359a487bef9497e8be5"),
    ("mwe_type/val.jsonl", "d1732505d3232a0ed9be421a1255cf4dda186905cb02a44977accb7af25804ed"),
    ("nc_literality/test.jsonl", "16750193114579ae1ab9c6830620cb34a4aec9a914eb2145d16390e991fc066e"),
    ("nc_literality/train.jsonl", "7e1fb13b44c19f3d7580ac7312136f906a5dcb47ae016ea14a3de364d978adc5"),
    ("nc_literality/val.jsonl", "4146f15275c1d64613252dc97e8281d435ef9413e07e670d163b24429348fbeb"),
    ("nc_relations/test.jsonl", "b8577b8494df1afe69029b30ab16ddadb1a38409a95beb283f0a24b39c08be1c"),
    ("nc_relations/train.jsonl", "d8d03536d58ff33eafeeb9690030e4f9afaa7646c59d523f59e2fc4f38337718"),
    ("nc_relations/val.jsonl", "1a39db999ac64c69a7a8aa6977a0b14189744aa746dfe653dfd55f2ee6b2f7d5"),
    ("vpc_classification/ids_test.jsonl", "2a54023ce295f285d80fd3c1b86bfd948c894de97202b2d0f757b995e9515fa9"),
    ("vpc_classification/ids_train.jsonl", "e17ee08bd35bdd9fd43be8efa79ac254a75b797c83b8506a1d3945581e3f6757"),
    ("vpc_classification/ids_val.jsonl", "bf136f53765bc660c98cf056b8161aff8d9f5953faaf210a3f6b324ccabaaaa1"),
)

LEXCOMP = DataSource(
    name="lexcomp",
    description="Shwartz & Dagan (2019) lexical composition tasks: VPC and LVC (BNC ids), NC literality, "
                "NC relations, AN attribute selection, phrase type (STREUSLE BIO)",
    homepage="https://github.com/vered1986/lexcomp",
    revision=_REV,
    license="Apache-2.0 (repository); underlying sources keep their own terms (BNC, STREUSLE CC BY-SA 4.0, …)",
    download_size=2_413_856,
    files=tuple(DataFile(rel, f"{_RAW}/{rel}", sha) for rel, sha in _FILES),
)

#: What the registry reads (``compeval.data.registry``): importing this module registers nothing.
SOURCES = (LEXCOMP,)
