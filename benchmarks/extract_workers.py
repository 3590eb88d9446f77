"""Throughput of ``casebuilder extract`` serially and with ``--workers 2`` (Dask distributed),
on the same synthetic reports in the same run, each on a fresh copy of one ingested case.

The reports are made here: news-style texts of attacks on civilians, built from our own
sentence patterns (places, weapons, targets, tolls, sources, dates, follow-up and background
sentences drawn from a seeded generator), each with a sidecar giving its title, outlet and
publication date, as a collected page would have. Their lengths (median about 1.3 KB) are of
the order of the development corpus's reports (median 1.7 KB). Ingesting is not timed.

Each ``extract`` runs as a user runs it, in a process of its own, and its wall time includes
its start-up: loading the tools (with workers: starting the local cluster, loading the tools
in each worker, and closing the cluster at the end). That start-up is measured too, as the
time of the same command on the same case once nothing is left to read, and the steady
throughput (documents / (time - start-up)) is printed beside the overall one. The script then
checks that both cases hold the same mentions, claims, runs and ``extract`` custody details.

    python benchmarks/extract_workers.py [--documents 480] [--workers 2] [--seed 14] [--repeat 1]
                                         [--keep]

The aim on a 2-core machine: overall ratio (workers / serial) of at least 1.7. Run it on a
quiet machine: the load average is printed, and a figure taken with load above 1 is not one
(on a shared machine, --repeat 2 or 3 keeps the fastest run of each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path

PLACES = [
    ("Kharkiv", "Kharkiv region"), ("Kupiansk", "Kharkiv region"), ("Izium", "Kharkiv region"),
    ("Zaporizhzhia", "Zaporizhzhia region"), ("Orikhiv", "Zaporizhzhia region"),
    ("Odesa", "Odesa region"), ("Kherson", "Kherson region"), ("Beryslav", "Kherson region"),
    ("Dnipro", "Dnipropetrovsk region"), ("Nikopol", "Dnipropetrovsk region"),
    ("Kryvyi Rih", "Dnipropetrovsk region"), ("Mykolaiv", "Mykolaiv region"),
    ("Sumy", "Sumy region"), ("Chernihiv", "Chernihiv region"),
    ("Kramatorsk", "Donetsk region"), ("Sloviansk", "Donetsk region"),
    ("Pokrovsk", "Donetsk region"), ("Kostiantynivka", "Donetsk region"),
    ("Vinnytsia", "Vinnytsia region"), ("Uman", "Cherkasy region"), ("Lviv", "Lviv region"),
    ("Kyiv", "Kyiv region"),
]
WEAPONS = ["a missile", "a ballistic missile", "a cruise missile", "a Shahed drone",
           "an attack drone", "artillery shells", "a guided aerial bomb", "rockets fired from "
           "a multiple launch system", "cluster munitions"]
TARGETS = ["a residential building", "an apartment block", "a school", "a hospital",
           "a market", "a bus stop", "the railway station", "a shopping centre",
           "a kindergarten", "a church", "private houses", "a humanitarian aid point",
           "a café", "a post office", "a queue for bread"]
SOURCES = ["the regional governor said", "the State Emergency Service said", "police said",
           "the city's mayor said", "local officials said", "the regional prosecutor's office "
           "said", "the head of the military administration wrote on Telegram"]
NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
           "eleven", "twelve"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
LEADS = [
    "Russian forces struck {target} in {place} with {weapon} on {when}, killing {killed} "
    "civilians and injuring {injured}, {source}.",
    "{Killed} people were killed and {injured} wounded when {weapon} hit {target} in {place}, "
    "{region}, on {when}, {source}.",
    "At least {killed} civilians died after Russian troops shelled {target} in {place} "
    "overnight, {source}.",
    "{Weapon} hit {target} in the centre of {place} on {when}; {injured} people were injured "
    "and {killed} killed, {source}.",
    "A Russian attack on {place} on {when} damaged {target} and killed {killed} residents, "
    "{source}.",
]
FOLLOW_UPS = [
    "Rescuers were still searching the rubble on {next}.",
    "Among the dead were {children} children, {source}.",
    "The strike damaged {buildings} nearby buildings and cut power to part of the city.",
    "It was the {ordinal} attack on {place} this week.",
    "Prosecutors opened a criminal investigation into a possible war crime.",
    "Photographs published by the emergency service showed burnt-out cars outside {target}.",
    "Residents said there had been no air-raid warning before the explosions.",
    "The wounded were taken to hospitals in {place}, {source}.",
]
ORDINALS = ["second", "third", "fourth", "fifth"]
#: Background of the kind a report carries besides its incidents (no toll, no attack).
CONTEXT = [
    "The city lies about {distance} kilometres from the front line and has been hit "
    "repeatedly since the spring.",
    "Ukraine's foreign ministry called the strike a deliberate attack on civilians and asked "
    "its partners for more air defence systems.",
    "Moscow says it does not target civilians and did not comment on the attack.",
    "Many residents left the area in the first months of the war, but thousands have since "
    "returned.",
    "Schools in the region have moved their lessons online or into basements.",
    "Volunteers set up a point near the site where people could get water, tea and help "
    "with documents.",
    "The regional council declared a day of mourning.",
    "Human rights monitors said they would document the attack and speak to witnesses.",
    "Power engineers worked through the night to restore electricity to the district.",
    "Local authorities urged residents to stay in shelters while the air-raid alert lasted.",
]


def report(rng: random.Random, number: int) -> tuple[str, dict[str, str]]:
    """A synthetic report (its text) and its sidecar facts."""
    published = date(2022, 3, 1) + timedelta(days=rng.randrange(900))
    paragraphs = []
    title = ""
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        place, region = rng.choice(PLACES)
        day = published - timedelta(days=rng.randrange(3))
        facts = {
            "place": place, "region": region, "target": rng.choice(TARGETS),
            "weapon": rng.choice(WEAPONS), "source": rng.choice(SOURCES),
            "killed": rng.choice(NUMBERS[:8]), "injured": rng.choice(NUMBERS),
            "when": rng.choice([WEEKDAYS[day.weekday()], f"{day.day} {day:%B %Y}"]),
            "next": WEEKDAYS[(day.weekday() + 1) % 7], "children": rng.choice(NUMBERS[1:3]),
            "buildings": rng.choice(NUMBERS[2:]), "ordinal": rng.choice(ORDINALS),
        }
        facts["Killed"], facts["Weapon"] = facts["killed"].capitalize(), \
            facts["weapon"][0].upper() + facts["weapon"][1:]
        sentences = [rng.choice(LEADS).format(**facts)]
        sentences += [s.format(**facts) for s in rng.sample(FOLLOW_UPS, rng.randint(2, 4))]
        paragraphs.append(" ".join(sentences))
        background = rng.sample(CONTEXT, rng.randint(2, 5))
        paragraphs.append(" ".join(background).format(distance=rng.randrange(8, 60)))
        title = title or f"Attack on {facts['target'].removeprefix('a ')} in {place} kills " \
                         f"{facts['killed']}"
    meta = {"title": title, "outlet": "casebuilder benchmark desk",
            "published": f"{published.isoformat()}T18:00:00+03:00", "language": "en",
            "url": f"https://benchmark.casebuilder.invalid/{number}"}
    return title + "\n\n" + "\n\n".join(paragraphs) + "\n", meta


def write_reports(folder: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for number in range(count):
        text, meta = report(rng, number)
        (folder / f"report-{number:04d}.txt").write_text(text)
        (folder / f"report-{number:04d}.meta.json").write_text(json.dumps(meta))


def run(home: Path, *args: str) -> float:
    # both digests taken as files are stored: no background sealer adds SHA-512 to one copy
    # of the case and not yet to the other
    env = {**os.environ, "CASEBUILDER_SECOND_DIGEST": "inline"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "casebuilder", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"casebuilder {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return seconds


def stored(home: Path) -> tuple[object, ...]:
    """Mentions, claims and runs (every column but ids and times) and extract entries."""
    with closing(sqlite3.connect(home / "case.db")) as db:
        mention_columns = [r[1] for r in db.execute("PRAGMA table_info(incident_mentions)")
                           if r[1] not in {"id", "run_id"}]
        claim_columns = [r[1] for r in db.execute("PRAGMA table_info(claims)")
                         if r[1] not in {"id", "mention_id"}]
        mentions = db.execute(f"SELECT {', '.join(mention_columns)} FROM incident_mentions "
                              "ORDER BY id").fetchall()
        claims = db.execute(f"SELECT {', '.join(claim_columns)} FROM claims ORDER BY id"
                            ).fetchall()
        runs = db.execute("SELECT item_id, extractor, vocabulary_sha256, gazetteer, "
                          "source_sha256, mention_count, claim_count, results_sha256 "
                          "FROM extraction_runs ORDER BY id").fetchall()
    lines = (home / "custody" / "log.jsonl").read_text().splitlines()
    entries = [(e["items"], e["details"]) for e in map(json.loads, lines)
               if e["action"] == "extract"]
    return mentions, claims, runs, entries


def steady(amount: float, seconds: float) -> str:
    """amount / seconds, or n/a when the time after start-up is within the noise (< 1 s)."""
    return f"{amount / seconds:6.2f}" if seconds >= 1 else "   n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=480)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each this many times, in turn, and keep the fastest")
    parser.add_argument("--keep", action="store_true", help="keep the cases made")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    work = Path(tempfile.mkdtemp(prefix="cb-extract-workers-"))
    try:
        write_reports(work / "reports", args.documents, args.seed)
        base = work / "ingested"
        run(base, "ingest", "--no-extract", str(work / "reports"))
        timed = {}
        runs = (("serial", []), (f"--workers {args.workers}", ["--workers", str(args.workers)]))
        for attempt in range(args.repeat):  # serial and workers in turn; the fastest of each
            for label, options in runs:
                home = work / f"{label.replace(' ', '').lstrip('-')}-{attempt}"
                shutil.copytree(base, home)
                seconds = run(home, "extract", *options)
                start_up = run(home, "extract", *options)  # nothing left to read
                if label not in timed or seconds < timed[label][0]:
                    timed[label] = (seconds, start_up, stored(home))
        print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        n = args.documents
        print(f"{n} documents; docs/s overall (start-up included) and steady (start-up "
              "taken off)")
        for label, (seconds, start_up, _) in timed.items():
            print(f"  {label:<12} {seconds:7.1f} s  {n / seconds:6.2f} docs/s overall   "
                  f"start-up {start_up:5.1f} s  {steady(n, seconds - start_up)} docs/s steady")
        (serial, s_up, s_found), (workers, w_up, w_found) = timed.values()
        print(f"ratio (workers / serial): overall {serial / workers:.2f}, steady "
              f"{steady(serial - s_up, workers - w_up)}")
        same = s_found == w_found
        print(f"results identical: {same} ({len(s_found[0])} mentions, {len(s_found[1])} "
              f"claims, {len(s_found[3])} extract entries)")
        return 0 if same else 1
    finally:
        if args.keep:
            print(f"cases kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
