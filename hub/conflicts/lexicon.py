"""Word lists the rule judge reads: function words, cues, synonyms and closed value classes.

Everything here is general English for an owner's everyday life, not tuned to any one sentence:
a word belongs in a list because of what it means, and each list is wider than the examples
that prompted it.
"""

from __future__ import annotations

WEEKDAYS = {
    "monday": "mon", "mon": "mon", "tuesday": "tue", "tue": "tue", "tues": "tue",
    "wednesday": "wed", "wed": "wed", "thursday": "thu", "thu": "thu", "thurs": "thu",
    "friday": "fri", "fri": "fri", "saturday": "sat", "sat": "sat", "sunday": "sun", "sun": "sun",
}  # fmt: skip

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
    "once": 1, "twice": 2, "thrice": 3, "a couple": 2,
}  # fmt: skip

ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "last": 99,
}  # fmt: skip

CURRENCIES = {"shekel", "shekels", "nis", "ils", "₪", "$", "dollar", "dollars", "usd", "£", "pound",
              "pounds", "gbp", "€", "euro", "euros", "eur"}  # fmt: skip

# Words that end a noun phrase: the verb or preposition after a subject.
AUX = {
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "does", "do", "did",
    "can", "could", "must", "will", "would", "should", "may", "might", "shall", "not", "never",
    "always", "also", "still", "now", "no", "usually", "sometimes", "often", "only", "just", "already",
    "really", "gets", "get", "got", "used",
}  # fmt: skip
PREPOSITIONS = {
    "at", "on", "in", "to", "from", "with", "for", "of", "by", "until", "till", "after", "before",
    "over", "under", "about", "into", "during", "since", "around", "through", "per", "than", "as",
}  # fmt: skip
# Verbs that commonly follow a subject in an owner's memories; used only to find where a subject ends.
VERBS = {
    "live", "work", "start", "begin", "finish", "end", "go", "come", "leave", "take", "drive", "eat",
    "drink", "like", "love", "prefer", "enjoy", "hate", "want", "need", "meet", "visit", "move",
    "open", "close", "renew", "keep", "use", "wear", "sleep", "wake", "pay", "cost", "owe", "read",
    "play", "run", "attend", "miss", "skip", "avoid", "stop", "quit", "switch", "change", "cancel",
    "book", "arrive", "sit", "stay", "teach", "call", "text", "send", "remind", "lead", "insure",
    "fly", "walk", "swim", "cook", "clean", "feed", "expire", "help", "look", "say", "think", "know",
    "see", "hold", "leads", "reads", "pick", "collect", "bring", "drop", "own", "manage", "handle",
    "coach", "babysit", "watch",
}  # fmt: skip
DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "his", "her", "their", "your", "its"}
OWNER_PRONOUNS = {"i", "me", "we", "us"}
OWNER_POSSESSIVES = {"my", "our"}
OTHER_PRONOUNS = {"he", "she", "they", "it", "him", "them", "there"}
# Sentence openers that are never names even when capitalised.
LEADING_SKIP = {
    "on", "in", "at", "since", "every", "each", "after", "before", "during", "from", "until", "for",
    "by", "starting", "today", "tomorrow", "yesterday", "now", "then", "also", "usually", "lately",
    "recently", "as", "please", "note", "remember",
    # Openers of a message that say how it is said, not what of: "Turns out Ella's braces ...".
    "turns", "apparently", "actually", "fyi", "btw", "update", "reminder", "heads", "ok", "okay",
    "so", "oh", "just", "well", "anyway", "hey", "hi", "quick",
}  # fmt: skip

# People named through someone else ("Dana's sister"): such a subject is a different person.
PERSON_NOUNS = {
    "mother", "father", "parent", "sister", "brother", "sibling", "wife", "husband", "partner", "son",
    "daughter", "kid", "child", "grandmother", "grandfather", "grandparent", "uncle", "aunt", "cousin",
    "niece", "nephew", "friend", "boss", "manager", "colleague", "teacher", "doctor", "dentist",
    "neighbour", "neighbor", "nanny", "babysitter", "boyfriend", "girlfriend", "fiance", "fiancee",
    "stepmother", "stepfather", "in-laws", "roommate", "assistant", "lawyer", "accountant", "therapist",
}  # fmt: skip

# Words for a relative that stand before a name as a title: "Grandma Pat" is Pat, "Oma Gisela" Gisela.
KIN_TITLES = {"grandma", "grandpa", "granny", "gran", "nana", "grandad", "granddad", "grandmother",
              "grandfather", "oma", "omi", "opa", "opi", "aunt", "auntie", "tante", "uncle", "onkel",
              "cousin"}  # fmt: skip

# The owner's household, said as a thing: "The family's GP", "the household switched ..." ("we").
HOUSEHOLD = {"family", "household"}

# Irregular forms and plain synonyms, folded before anything is compared.
SYNONYMS = {
    "mom": "mother", "mum": "mother", "mommy": "mother", "dad": "father", "daddy": "father",
    "children": "kid", "child": "kid", "kids": "kid", "grandma": "grandmother", "grandpa": "grandfather",
    "granny": "grandmother", "gran": "grandmother", "nana": "grandmother", "grandad": "grandfather",
    "granddad": "grandfather", "oma": "grandmother", "omi": "grandmother", "opa": "grandfather",
    "opi": "grandfather", "mama": "mother", "mami": "mother", "mutti": "mother", "papa": "father",
    "papi": "father", "vati": "father", "tante": "aunt", "auntie": "aunt", "onkel": "uncle",
    "favorite": "favourite", "color": "colour", "neighbor": "neighbour", "license": "licence",
    "until": "end", "till": "end", "finish": "end", "finishes": "end", "finished": "end", "ends": "end",
    "close": "end", "closes": "end", "closing": "end",
    "begin": "start", "begins": "start", "began": "start", "starts": "start", "started": "start",
    "lives": "live", "lived": "live", "living": "live", "reside": "live", "resides": "live",
    "based": "live", "moved": "live", "move": "live", "moves": "live", "address": "live",
    "bed": "sleep", "bedtime": "sleep", "sleeps": "sleep", "asleep": "sleep",
    "wakes": "wake", "woke": "wake", "waking": "wake",
    "loves": "like", "love": "like", "enjoy": "like", "enjoys": "like", "likes": "like",
    "favourite": "like", "fond": "like", "prefer": "like", "prefers": "like", "preferred": "like",
    "employed": "work", "employ": "work", "job": "work", "works": "work", "working": "work",
    "workday": "work", "attends": "attend", "misses": "attend", "miss": "attend", "missed": "attend",
    "cost": "pay", "costs": "pay", "price": "pay", "pays": "pay", "paid": "pay", "fee": "pay",
    "charge": "pay", "charged": "pay", "rate": "pay", "rates": "pay",
    "eats": "eat", "fed": "eat", "feed": "eat", "ate": "eat", "drinks": "drink", "drank": "drink",
    "drives": "car", "drive": "car", "driving": "car", "vehicle": "car",
    "called": "call", "calls": "call", "nickname": "call",
    "comes": "come", "coming": "come", "arrive": "come", "arrives": "come", "visits": "visit",
    "takes": "take", "taking": "take", "took": "take", "dose": "take", "dosage": "take",
    "seat": "sit", "seats": "sit", "sits": "sit", "seated": "sit",
    "insures": "insur", "insured": "insur", "insurance": "insur", "insure": "insur",
    "renews": "renew", "renewed": "renew", "renewal": "renew",
    "leads": "lead", "leader": "lead", "born": "birthday", "birth": "birthday",
}  # fmt: skip

# Words that mean a negated predicate: "vegetarian" is "does not eat meat". Each adds its words to the
# frame and flips the polarity, so "is vegetarian" restates "doesn't eat meat" and contradicts "eats meat".
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "vegetarian": ("eat", "meat"), "vegan": ("eat", "meat", "dairy", "egg"), "teetotal": ("drink", "alcohol"),
    "teetotaler": ("drink", "alcohol"), "sober": ("drink", "alcohol"), "intolerant": ("digest",),
    "nonsmoker": ("smoke",), "unemployed": ("work",), "retired": ("work",),
}  # fmt: skip

# Words that say something may not be had: "allergic to penicillin" restates "can't have penicillin",
# while "has no allergies" denies it.
FORBIDS = {"allergic", "allergy", "intolerant", "intolerance"}

# Closed classes: two different members of one class are two values of one attribute.
VALUE_CLASSES: dict[str, set[str]] = {
    "colour": {"red", "orange", "yellow", "green", "blue", "purple", "pink", "white", "black", "grey",
               "gray", "silver", "brown", "gold", "beige", "turquoise", "navy"},
    "side": {"left", "right"},
    "age_rank": {"older", "younger", "elder", "eldest", "oldest", "youngest", "twin"},
    "kinship": {"wife", "husband", "sister", "brother", "mother", "father", "son", "daughter", "uncle",
                "aunt", "cousin", "niece", "nephew", "grandmother", "grandfather", "stepmother",
                "stepfather", "boyfriend", "girlfriend", "fiance", "fiancee"},
    "marital": {"married", "divorced", "single", "engaged", "separated", "widowed"},
    "daypart": {"morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "night",
                "nights", "day", "noon"},
    "workplace": {"home", "office", "remote", "remotely", "onsite", "hybrid"},
    "in_out": {"indoor", "indoors", "outdoor", "outdoors", "outside", "inside"},
    "seat": {"window", "aisle", "middle"},
    "doneness": {"rare", "well", "done"},
    "validity": {"valid", "expired", "invalid", "active", "suspended"},
    "payment": {"debit", "credit", "cash", "transfer", "cheque", "check", "paypal", "bit"},
    "weekpart": {"weekday", "weekdays", "weekend", "weekends"},
}  # fmt: skip
CLASS_OF = {word: name for name, words in VALUE_CLASSES.items() for word in words}

# Each flips the polarity of what follows: "not", but also verbs of stopping and avoiding.
NEGATORS = {
    "not", "no", "never", "none", "nobody", "nothing", "without", "neither", "nor", "stopped", "stop",
    "stops", "quit", "quits", "cancelled", "canceled", "cancel", "avoid", "avoids", "avoided", "miss",
    "misses", "missed", "skip", "skips", "skipped", "refuse", "refuses", "lacks", "hate", "hates",
    "dislike", "dislikes", "former", "formerly",
}  # fmt: skip
# Verbs that negate another: "hates phone calls" says what "likes phone calls" says, negated.
NEGATED_VERBS = {"hate": "like", "hates": "like", "hated": "like", "dislike": "like", "dislikes": "like",
                 "disliked": "like"}  # fmt: skip
# How a statement is put, not what it says: a deduction's "seems to prefer", a fact's "she said so".
HEDGES = {"seem", "seems", "seemed", "apparently", "probably", "perhaps", "maybe", "said", "says", "told",
          "mentioned"}  # fmt: skip
# A statement that reports a change rather than a standing fact.
UPDATE_CUES = {
    "now", "stopped", "quit", "moved", "changed", "switched", "longer", "anymore", "back", "new",
    "instead", "cancelled", "canceled", "started", "nowadays", "these", "became", "become", "used",
    "was", "were", "renamed", "replaced", "rescheduled", "postponed",
}  # fmt: skip
# "Noa is also allergic to sesame": a second value, not a replacement.
ADDITIVE_CUES = {"also", "too", "additionally", "another", "both", "plus"}

# Words that carry no attribute of their own.
STOPWORDS = AUX | PREPOSITIONS | DETERMINERS | OWNER_PRONOUNS | OWNER_POSSESSIVES | OTHER_PRONOUNS | {
    "and", "or", "but", "so", "if", "when", "while", "because", "any", "some", "all", "every", "each",
    "other", "more", "most", "less", "very", "about", "approximately", "around", "roughly", "go",
    "goes", "going", "went", "make", "makes", "there", "here", "what", "which", "who", "whom", "whose",
    "than", "then", "being", "own", "up", "out", "off", "let", "lets", "it", "he", "she", "his", "her",
    "him", "them", "their", "owner", "'s", "always", "usually", "normally", "typically", "generally",
    "daily", "weekly", "monthly", "regular", "regularly", "person", "thing", "things", "one", "am",
    "pm", "a.m.", "p.m.", "o'clock", "time", "times", "week", "month", "year", "years", "day", "days",
    "old", "today", "tomorrow", "tonight", "yesterday", "this", "next", "per",
}  # fmt: skip
# Hypernyms that widen a negation ("no food allergies", "any medication") rather than name a value.
GENERIC_NOUNS = {"food", "foods", "medication", "medications", "medicine", "medicines", "drug", "drugs",
                 "anything", "something", "kind", "kinds", "type", "types", "stuff"}  # fmt: skip

# Titles and generic words inside names that do not tell two names apart.
NAME_FILLERS = {"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "street", "st", "st.", "road",
                "avenue", "ave", "elementary", "school", "the", "of", "ha", "clinic"}  # fmt: skip
