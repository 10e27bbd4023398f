"""Chinese fuzz question templates: each returns one question, or a question and a follow-up changing one parameter."""

from __future__ import annotations

from evaluators.fuzz_vocab import (
    BIG_GPUS,
    GPUS,
    METHODS_ZH,
    MODELS,
    PRECISIONS_ZH,
    SIZES,
    R,
    _days_zh,
    _model,
    _tokens_zh,
)


def zh_fit(r: R) -> tuple[str, ...]:
    g, m, meth = r.choice(GPUS), _model(r), r.choice(METHODS_ZH)
    q = r.choice([f"{g}能{meth}{m}吗", f"一张{g}够不够{meth} {m}？", f"{r.randint(1, 8)}张{g}能不能跑{m}的{meth}", f"用{g}做{m}{meth}显存够吗"])
    follow = r.choice(["那换成INT4呢", "那换成QLoRA呢", "如果用4张卡呢", f"换成{r.choice(GPUS)}呢"])
    return (q, follow) if r.random() < 0.4 else (q,)


def zh_sizing(r: R) -> tuple[str, ...]:
    g, m = r.choice(BIG_GPUS), r.choice(SIZES + MODELS[:8])
    q = r.choice(
        [
            f"{_days_zh(r)}内用{_tokens_zh(r)}预训练{m}，需要多少张{g}？",
            f"预训练一个{m}模型，数据{_tokens_zh(r)}，要{_days_zh(r)}完成，{g}要几张",
            f"{g}训练{m}，{_tokens_zh(r)}，需要多久，多少卡",
        ]
    )
    follow = r.choice(["那用16张卡呢", "如果给一个月呢", f"换成{r.choice(BIG_GPUS)}呢"])
    return (q, follow) if r.random() < 0.4 else (q,)


def zh_serving(r: R) -> tuple[str, ...]:
    m, g, users = _model(r), r.choice(GPUS), r.choice([10, 50, 100, 200, 500, 1000, 5000])
    ctx = r.choice(["4k", "8K", "32k", "128k", "1万token"])
    q = r.choice(
        [
            f"部署{m}给{users}个用户同时用，上下文{ctx}，需要几张{g}？",
            f"{users}人并发访问{m}，{r.choice(PRECISIONS_ZH)}，要什么卡",
            f"用{g}推理{m}，支持{users}并发要多少卡",
        ]
    )
    follow = r.choice(["那换成INT4呢", f"如果{users * 2}个用户呢", "上下文改成8k呢"])
    return (q, follow) if r.random() < 0.4 else (q,)


def zh_compare(r: R) -> tuple[str, ...]:
    a, b = r.sample(GPUS, 2)
    q = r.choice([f"{a}和{b}哪个好", f"{a}对比{b}，训练{_model(r)}选哪个", f"推理用{a}还是{b}", f"{a}比{b}快多少"])
    return (q,)


def zh_claim(r: R) -> tuple[str, ...]:
    g, m, n = r.choice(BIG_GPUS), r.choice(MODELS + SIZES), r.choice([8, 16, 32, 64, 128, 256])
    q = r.choice(
        [
            f"厂商说{n}张{g}训练{m}只要{r.randint(2, 30)}天，靠谱吗",
            f"供应商说{n}卡{g}能支撑{r.choice([100, 1000, 10000])}个用户用{m}，真的假的",
            f"销售说一张{r.choice(GPUS)}就能微调{m}，对吗",
            f"他们说{m}在{n}张{g}上能跑{r.choice([2000, 5000, 20000])} tokens/s，可信吗",
        ]
    )
    return (q,)


def zh_spec(r: R) -> tuple[str, ...]:
    g = r.choice(GPUS)
    q = r.choice([f"{g}显存多大", f"{g}的参数", f"{g}的BF16算力是多少", f"{g}显存带宽和功耗", f"{g}支持FP8吗"])
    return (q,)


def zh_rent_buy(r: R) -> tuple[str, ...]:
    g, price = r.choice(BIG_GPUS + ["4090", "L40S"]), r.choice([8, 15, 20, 25, 2, 3])
    unit = "元/小时" if price > 5 else "美元/小时"
    capex = r.choice(["25万", "20万一张", "200万8卡", "1.5万", "3万美元"])
    years, util = r.choice([2, 3, 4, 5]), r.choice([30, 50, 70, 90])
    q = r.choice(
        [
            f"{g}租的话{price}{unit}，买的话{capex}，用{years}年，租还是买划算",
            f"买{r.choice([1, 4, 8])}张{g}还是租？云上{price}{unit}，购买{capex}，利用率{util}%",
            f"{g}租用{price}{unit}和自购{capex}的盈亏平衡点",
        ]
    )
    follow = r.choice([f"如果利用率只有{r.choice([20, 40])}%呢", f"那按{years + 1}年算呢"])
    return (q, follow) if r.random() < 0.3 else (q,)


def zh_kv(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS)
    ctx, batch = r.choice(["4k", "8k", "32k", "128K", "10万"]), r.choice([1, 4, 8, 16, 32])
    q = r.choice([f"{m}在{ctx}上下文、batch {batch}时KV cache多大", f"{m} {batch}路并发、{ctx}上下文，KV缓存占多少显存"])
    return (q, "那KV缓存用FP8呢") if r.random() < 0.3 else (q,)


def zh_checkpoint(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS + SIZES)
    q = r.choice([f"{m}训练的checkpoint有多大", f"{m}用Adam训练，存一次检查点要多少空间", f"{m}的{r.choice(PRECISIONS_ZH)}权重文件多大"])
    return (q,)


def zh_diag(r: R) -> tuple[str, ...]:
    m, g = _model(r), r.choice(GPUS)
    q = r.choice(
        [
            f"{r.randint(1, 8)}张{g}微调{m}爆显存了，batch {r.choice([1, 4, 8, 16])}",
            f"训练{m}时{g}利用率只有{r.choice([20, 30, 40, 55])}%，怎么回事",
            f"{g}加载{m}报CUDA out of memory，序列长度{r.choice([2048, 4096, 8192])}",
            f"{r.choice([8, 16, 32])}张{g}训练{m}，MFU只有{r.choice([30, 35, 45])}%正常吗",
        ]
    )
    return (q,)


def zh_preflight(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS), r.choice([8, 16, 32, 64])
    q = r.choice([f"在{n}张{g}上训练{m}之前要检查什么", f"{n}卡{g}训练{m}，上线前的检查清单"])
    return (q,)


def zh_budget(r: R) -> tuple[str, ...]:
    budget = r.choice(["10万", "50万元", "200万", "1000万", "5万块"])
    q = r.choice(
        [
            f"预算{budget}，想微调{_model(r)}，买什么卡",
            f"{budget}预算部署{_model(r)}给{r.choice([50, 100, 500])}人用，推荐配置",
            f"有{budget}能买什么GPU做大模型训练",
        ]
    )
    return (q,)


def zh_time_cost(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS + ["4090", "L40S"]), r.choice([1, 2, 4, 8, 16, 64])
    q = r.choice(
        [
            f"{n}张{g}微调{m}，{r.choice(['10万条', '5万条', '100万条'])}数据每条{r.choice(['512', '2k', '4096'])} token，跑{r.choice([1, 2, 3])}个epoch要多久",
            f"用{g}训练{m}，{_tokens_zh(r)}，按{r.choice([10, 15, 20])}元每卡时算要花多少钱",
            f"{n}张{g}一年电费多少，电价{r.choice([0.6, 0.8, 1.2])}元/度",
            f"{n}卡{g}训练{m}，MFU {r.choice([30, 40, 50])}%，每秒多少token",
            f"{n}张{g}跑{m}，{_tokens_zh(r)}，要几天",
        ]
    )
    follow = r.choice(["卡数翻倍呢", "那跑3个epoch呢", f"MFU只有{r.choice([25, 35])}%呢"])
    return (q, follow) if r.random() < 0.3 else (q,)


def zh_inference_speed(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(GPUS), r.choice([1, 2, 4, 8])
    q = r.choice(
        [
            f"{m}在{n}张{g}上单用户每秒多少token",
            f"{n}卡{g}跑{m} {r.choice(PRECISIONS_ZH)}，每个token延迟多少",
            f"厂商说一张{g}跑{m}单路能到{r.choice([50, 100, 300])} tokens/s，真的吗",
            f"{m}用{n}张{g}，{r.choice(['2k', '8k', '32k'])}的prompt首字延迟多少",
            f"要求{m}每token延迟低于{r.choice([50, 100, 200])}毫秒，选什么卡",
        ]
    )
    return (q,)


def zh_claim_compute(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS[:12] + SIZES)
    q = r.choice(
        [
            f"用{_tokens_zh(r)}训练{m}需要{r.choice(['1e23', '3e22', '5e24'])}次浮点运算，对吗",
            f"文章说{m}训练用了{r.choice(['10万', '100万', '250万', '3万'])}个{r.choice(BIG_GPUS)} GPU小时，合理吗",
            f"有人说{r.choice(BIG_GPUS)}训练比{r.choice(BIG_GPUS)}快{r.choice([2, 3, 6, 9])}倍，是真的吗",
            f"我们的网络是{r.choice(['100G以太网', '200G RoCE', '25G', '400G IB'])}，够{r.choice([16, 64, 256])}卡训练{m}吗",
        ]
    )
    return (q,)


def zh_cluster(r: R) -> tuple[str, ...]:
    g, n = r.choice(BIG_GPUS), r.choice([16, 32, 64, 128, 256, 1024])
    q = r.choice(
        [
            f"搭一个{n}卡{g}集群，网络、存储、供电怎么配",
            f"{n}张{g}要多少电",
            f"我们有{n // 8}台8卡{g}服务器，需要什么样的互联",
            f"用{r.choice([1, 4])}张{r.choice(GPUS)}给{r.choice(['1000万', '1亿', '50万'])}篇文档做embedding，要多久",
        ]
    )
    follow = r.choice(["那16张卡呢", f"{n * 2}卡呢"])
    return (q, follow) if r.random() < 0.3 else (q,)


def zh_odd_units(r: R) -> tuple[str, ...]:
    m, g = _model(r), r.choice(GPUS)
    q = r.choice(
        [
            f"{r.choice(['1.5万亿', '8000亿', '3千亿', '两万亿'])}token训练{m}，{r.choice(['1千', '512', '2048'])}张{r.choice(BIG_GPUS)}要几天",
            f"租{r.choice([2, 4, 8])}张{g}，{r.choice(['每卡每小时1.89美元', '每小时6块5', '每台每小时80元', '一天150块'])}，"
            f"用{r.choice(['300小时', '两周', '45天', '一个半月'])}，一共多少钱",
            f"{m}上下文{r.choice(['128k', '131072', '100万', '3.2万'])}，一张{g}能同时跑几条序列",
            f"{r.choice(['25万', '120万', '8万'])}条样本，平均{r.choice(['750', '1100', '三千'])}个token，"
            f"{r.choice(['半个', '1.5个', '两个'])}epoch，{r.choice([1, 2, 8])}张{g}训练{m}要多久",
        ]
    )
    follow = r.choice(["价格减半呢", "数据翻三倍呢", "上下文翻倍呢"])
    return (q, follow) if r.random() < 0.35 else (q,)


def zh_measured(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS + ["4090", "L40S", "A100 40G"]), r.choice([1, 4, 8, 16, 64])
    rate = r.choice(["900", "2500", "9000", "4.5万", "12万", "3.5k"])
    q = r.choice(
        [
            f"{n}张{g}训练{m}，tokens/s 只有 {rate}，正常吗",
            f"{n}卡{g}微调{m}，每卡 {rate} tokens/s，是不是太慢",
            f"{n}张{g}预训练{m}，实测吞吐 {rate} tokens/s，合理吗",
        ]
    )
    return (q, "正常的MFU应该是多少") if r.random() < 0.25 else (q,)
