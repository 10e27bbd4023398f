"""The one catalog-name finder: positions for slots and grounding, documents for retrieval, the same spellings."""

from service.catalog import default_catalog, normalize
from service.catalog.names import catalog_names, find_all, name_index, named_documents


def test_positions_of_gpus_instances_and_models():
    catalog = default_catalog()
    names = catalog_names(catalog)
    assert names is catalog_names(catalog)  # built once per catalog
    text = "p5.48xlarge 和 8张 A100 80G 跑 Llama-3 70B"
    gpus = find_all(names.gpu, text)
    assert [g for g, _, _ in gpus] == ["h100-sxm", "a100-80gb-sxm"]  # an instance type stands for its GPU
    assert text[gpus[1][1] : gpus[1][2]] == "A100 80G"  # the longest spelling, not "A100" plus "80G"
    assert [m for m, _, _ in find_all(names.model, text)] == ["llama-3-70b"]
    assert find_all(names.gpu, "gpt4 is not a T4 card") == [("t4", 14, 16)]  # not inside "gpt4"


def test_named_documents_use_the_same_spellings():
    names = name_index([("card-h100", [normalize("H100 SXM"), normalize("h100")]), ("card-t4", [normalize("T4")])])
    assert named_documents("How fast is the H100 SXM?", names) == {"card-h100"}
    assert named_documents("gpt4 pricing", names) == set()


def test_a_count_glued_with_x_precedes_a_gpu_but_not_a_model():
    names = catalog_names(default_catalog())
    assert find_all(names.gpu, "8xH100 and 4x4090") == [("h100-sxm", 2, 6), ("rtx-4090", 13, 17)]
    assert find_all(names.gpu, "box4090") == []  # letters before the name still hide it
    assert find_all(names.model, "2xQwen-7B") == []
