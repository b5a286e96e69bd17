"""A number of the claim that no number of the evidence supports (SPEC §1: partly true).

Numbers are compared by value (`lang.numbers` reads them), never looked up as strings:
LLM answers round ("about 2.1 million" for 2,102,650), scale ("2.1M"), spell out
("two million") and hedge ("over 500"). A claim's number is supported when:

* an evidence number of a compatible kind (a percentage only by a percentage; money by
  money of the same currency or a bare count; a measure by the same unit or a bare count)
  rounds to it at the claim's own precision: within half the step the claim was written
  to ("2.1 million": 2,050,000-2,150,000; "2,102,650": that number). A hedge sets the
  direction: "about", "roughly", "nearly" ... are both ways within the written rounding
  or 5 % of the figure, whichever is wider ("roughly 40%" is 38-42%, "almost 10%" is
  not 5%); "over", "more than", "at
  least" a value from it up to twice it; "under", "up to", "fewer than" one from half
  of it up to it (a bound rounds a value near it: "fewer than 125,000 inhabitants" is
  not stated by every smaller number of the evidence);
* or it is a share of a whole the evidence states: a percentage that one number of a
  passage makes of a larger one of the same kind ("$20.3 million of a $50 million
  budget" is 40.6 %, so "roughly 40%"), the rise from the smaller to the larger in percent
  ("about 19,000 diagnoses in 2015, compared to about 17,300 in 2006": up 9.8 %, "almost
  10%"), or a count that a stated percentage makes of a stated whole ("40% of 50
  million" is 20 million). A fall in percent is not read: it is the complement of a
  share (from $50 million to $20.3 million is down 59.4 %, and "60% of the budget goes
  to schools" would pass);
* or it is the sum or the difference of two amounts of one passage in one currency or
  unit ("$20.3 million of a $50 million budget": $29.7 million for the rest), or of two
  percentages ("from 40% to 52%": 12 points). Two counts are never summed: two counts
  of one sentence are too often of different things (wins and goals), and the small
  numbers answers write ("two years", "four") are sums of almost any two;
* or it is a span of years from one year of a passage to a later one, counted either
  way calendar years are counted ("over a 10-year period" and "in nine years" for
  figures of 2006 and 2015): the claim's unit says it counts years between stated ones;
* or, as before, its value or bare figure is written in the evidence ("200 million" and
  "200") as a number of a compatible kind;
* a count is supported by a noun of the evidence that states it ("three people" by "the
  trio", "two" by "the pair"; `en.COLLECTIVE_COUNTS`): exactly or "about" it, a count
  only, never a measure ("2 days" is not "the pair");
* a range is supported when both of its ends are; one written "between 10 and 12" also
  when an evidence number lies inside it ("10-12" and "10 to 12" also write scores and
  changes: "3-13 to 1-11", "from $10.99 to $13.99").

A year is compared only with a year, except where it is written alike. A figure hyphened
onto a capitalised word is part of a name ("COVID-19", "SARS-CoV-2", "F-16"), not a number
the evidence must state: an abstract that says "SARS-CoV-2" supports a claim about
"COVID-19" as far as numbers go (on fit_unseen's fit half the check fired on 104
examples, 43 of them such names, at 0.50 precision; without them 61 at 0.51).

No other derivations: products, ratios of unrelated numbers, averages, unit conversions
("5 km" from "5,000 m") and differences between dates are where a coincidence passes for
support in a long passage (a passage's numbers make many pairs); the two numbers of a
derivation must be in one passage, and years (but for a span of years), dates' days and
ordinals take part in none.
"""

from __future__ import annotations

from grounding_app.engine.checks import NUMBER, Check, Reading
from grounding_app.engine.lang.numbers import unsupported


def _fires(reading: Reading) -> bool:
    return bool(unsupported(reading.claim_as_dated, reading.passages, reading.language))


_PARIS = ("Paris, the capital of France, has an estimated population of 2,102,650 residents.",)
_BUDGET = ("The city spends $20.3 million of a $50 million budget on its schools.",)
_STADIUM = ("The stadium, opened in 2004, holds 25,000 people; the old one held 4,200.",)
_SEASON = ("The team won 12 games and lost 4 in the 2019 season.",)
_TALL = ("The tower is 330 metres tall and was finished in 1889.",)
_PRICE = ("Tickets cost €25 for adults and €12 for children.",)
_RATE = ("Turnout rose from 40% in 2015 to 52% in 2019.",)
_CASES = "There were 19,000 cases in 2015, against 17,300 in 2006."
_VIRUS = ("The coronavirus spreads through respiratory droplets.",)
_JET = ("The F-16 first flew in 1974.",)
_SALES = ("Sales fell in mid-2020.",)
_TRIO = ("Ann Lee, Bo Park and Cy Diaz appeared in court. The trio will appear again in May.",)
_JERUSALEM = ("אוכלוסיית ירושלים מונה 971,800 תושבים, לפי נתוני 2021.",)
_TEL_AVIV = ("בתל אביב גרים כ-460 אלף תושבים.",)
_ISRAEL = ("אוכלוסיית ישראל מונה 9.8 מיליון תושבים, מהם 2.1 מיליון ערבים.",)

CHECK = Check(
    "numbers",
    NUMBER,
    _fires,
    {
        "en": (
            ("Paris has a population of about 2.1 million people.", _PARIS, False),
            ("Paris has a population of about 3.1 million people.", _PARIS, True),
            ("Paris has 2.1 million residents.", _PARIS, False),
            ("Paris has 2.1M residents.", _PARIS, False),
            ("Paris has about two million residents.", _PARIS, False),
            ("Paris has more than 2 million residents.", _PARIS, False),
            ("Paris has over 2.2 million residents.", _PARIS, True),
            ("Paris has fewer than 2.5 million residents.", _PARIS, False),
            ("Paris has fewer than 2 million residents.", _PARIS, True),
            ("Paris has fewer than 10 million residents.", _PARIS, True),
            ("Paris has 2,102,650 residents.", _PARIS, False),
            ("Paris has 2,102,651 residents.", _PARIS, True),
            # Unhedged and written to the unit, 2,100,000 claims more than the evidence.
            ("Paris has 2,100,000 residents.", _PARIS, True),
            ("Roughly 40% of the budget goes to schools.", _BUDGET, False),
            ("Roughly 60% of the budget goes to schools.", _BUDGET, True),
            ("About 41% of the budget goes to schools.", _BUDGET, False),
            ("Exactly 40% of the budget goes to schools.", _BUDGET, True),
            ("The schools get $20.3 million.", _BUDGET, False),
            ("The schools get about $20 million.", _BUDGET, False),
            ("The schools get €20.3 million.", _BUDGET, True),
            ("The schools get 20.3 million dollars.", _BUDGET, False),
            ("The other services get $29.7 million.", _BUDGET, False),
            ("The other services get $31 million.", _BUDGET, True),
            ("The stadium holds 25000 people.", _STADIUM, False),
            ("The stadium holds 26,000 people.", _STADIUM, True),
            ("The stadium holds twenty-five thousand people.", _STADIUM, False),
            ("The old stadium held some 4,000 people.", _STADIUM, False),
            ("The old stadium held 4,000 people.", _STADIUM, True),
            # Kept misses: counts are not summed (two counts of one sentence are too
            # often of different things), and a share of a sum is two derivations.
            ("The team played 16 games.", _SEASON, True),
            ("The team won 8 more games than it lost.", _SEASON, True),
            ("The team won 75% of its games.", _SEASON, True),
            ("The team won between 10 and 14 games.", _SEASON, False),
            ("The team won between 13 and 14 games.", _SEASON, True),
            # A dash or "to" joins a score or a change as often as a range: both ends
            # must be stated.
            ("The team won 10-14 games.", _SEASON, True),
            ("The team won 12-4.", _SEASON, False),
            # A bound is its writer's rounding of a value near it (within a factor of 2).
            ("The team won fewer than 15 games.", _SEASON, False),
            ("The team won fewer than 50 games.", _SEASON, True),
            ("The team won more than 10 games.", _SEASON, False),
            # A year is a label, not an amount: 2004 + 15 is no year of the evidence.
            ("The stadium opened in 2019.", _STADIUM, True),
            ("The tower is about 320 metres tall.", _TALL, False),
            ("The tower is about 300 metres tall.", _TALL, True),
            ("The tower is 330 feet tall.", _TALL, True),
            ("The tower is 1,000 feet tall.", _TALL, True),
            ("A child's ticket costs €12.", _PRICE, False),
            ("A child's ticket costs $12.", _PRICE, True),
            ("Turnout rose by 12 percentage points.", _RATE, False),
            ("Turnout rose by 15 percentage points.", _RATE, True),
            ("Turnout reached 52% in 2019.", _RATE, False),
            ("Turnout reached 62% in 2019.", _RATE, True),
            (
                "Cases rose by almost 10%.",
                ("19,000 cases in 2015, against 17,300 in 2006.",),
                False,
            ),
            ("Cases rose by almost 20%.", ("19,000 cases in 2015, against 17,300 in 2006.",), True),
            ("Cases rose over a 10-year period.", (_CASES,), False),
            ("Cases rose in nine years.", (_CASES,), False),
            ("Cases rose over a 12-year period.", (_CASES,), True),
            ("Cases rose over the 10 years 2006-2015.", ("Cases, 2006-2015: up.",), False),
            # A fraction in words is a percentage, "about" by nature.
            ("Two-thirds of the voters backed it.", ("Of 300 voters, 205 backed it.",), False),
            ("Two-thirds of the voters backed it.", ("Of 300 voters, 120 backed it.",), True),
            (
                "Two-thirds of the MPs want a new deal.",
                ("A third of the MPs want a new deal, and another third want to leave.",),
                True,
            ),
            # A figure hyphened onto a capitalised word names; at a sentence's start the
            # capital is the sentence's.
            ("COVID-19 spreads through droplets.", _VIRUS, False),
            ("Infection with SARS-CoV-2 is spread by droplets.", _VIRUS, False),
            ("The F-16 first flew in 1974.", _JET, False),
            ("The F-16 first flew in 1976.", _JET, True),
            ("Sales fell in mid-2021.", _SALES, True),
            ("Mid-2021 sales fell.", _SALES, True),
            ("Mid-2020 sales fell.", _SALES, False),
            # Kept miss: a name's figure swapped is another name, for `substitution`.
            ("The F-35 first flew in 1974.", _JET, False),
            # A noun states a count, and only a count.
            ("Three people appeared in court.", _TRIO, False),
            ("Four people appeared in court.", _TRIO, True),
            ("More than three people appeared in court.", _TRIO, True),
            ("The hearing lasted 3 hours.", _TRIO, True),
            # Kept miss: names listed are not counted.
            ("Three people were charged.", ("Ann Lee, Bo Park and Cy Diaz were charged.",), True),
            # Kept miss: a noun's count supports a count of anything.
            ("The pair won 3 games.", ("The trio won the relay.",), False),
            # Kept miss: an age needs today's date, which no passage states.
            ("The stadium is 15 years old.", _STADIUM, True),
        ),
        "he": (
            ("בירושלים גרים כ-970 אלף תושבים.", _JERUSALEM, False),
            ("בירושלים גרים כ-870 אלף תושבים.", _JERUSALEM, True),
            ("בירושלים גרים יותר מ-900 אלף תושבים.", _JERUSALEM, False),
            ("בירושלים גרים 971,800 תושבים.", _JERUSALEM, False),
            ("בירושלים גרים 971,000 תושבים.", _JERUSALEM, True),
            ("בתל אביב גרים 460,000 תושבים.", _TEL_AVIV, False),
            ("בתל אביב גרים 560,000 תושבים.", _TEL_AVIV, True),
            ("בישראל גרים 9.8 מיליון תושבים.", _ISRAEL, False),
            # Kept miss: a Hebrew number word and the scale after it are read apart (10,
            # then 1,000,000), as the word-matching judge read them before.
            ("בישראל גרים כעשרה מיליון תושבים.", _ISRAEL, True),
            ("בישראל גרים 8.8 מיליון תושבים.", _ISRAEL, True),
            ("כ-21 אחוז מתושבי ישראל הם ערבים.", _ISRAEL, False),
            ("כ-31 אחוז מתושבי ישראל הם ערבים.", _ISRAEL, True),
            # Kept miss: counts are not subtracted (9.8 - 2.1 million).
            ("בישראל גרים 7.7 מיליון יהודים ואחרים.", _ISRAEL, True),
        ),
    },
)
