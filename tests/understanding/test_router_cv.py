"""k-fold cross-validated intent accuracy on the exemplars (evaluators/router_cv.py): held-out exemplars read back correctly."""

from evaluators.router_cv import cross_validate


def test_five_fold_accuracy_is_at_least_0_9():
    report = cross_validate(folds=5)
    assert report["exemplars"] >= 40 * 11 * 2
    assert report["overall"] >= 0.9, (report["overall"], report["per_intent"], report["mistakes"][:10])
    # The evidence adds to the plain router; if it did not, the weights would be wrong.
    assert report["overall"] >= report["router_only"]
    assert all(row["accuracy"] >= 0.7 for row in report["per_intent"].values()), report["per_intent"]
