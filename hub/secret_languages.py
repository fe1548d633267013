"""How each language names secret things and says what they are: the words hub.secrets reads.

One `Language` per language. hub.secrets builds its rules for secrets said in words (a password, a
PIN, a door code, a card's CVV, recovery codes) from these entries, each language with its own
words, so that adding a language is adding an entry here (docs/secrets.md says how).

Words are plain phrases, matched without regard to case. In a phrase, a space matches any spacing,
a hyphen may be a space or nothing ("pin-code": "PIN code", "pincode"), an apostrophe either kind
of apostrophe, and `*` any ending ("garage*": "garaje", "garages") or, in front, any beginning
("*passwort": "WLAN-Passwort", "Mailpasswort").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """The words one language uses for secret things, and how it says that one is something."""

    code: str
    # Name a password: what follows "is" may be one ("Mot de passe : soleil").
    passwords: tuple[str, ...] = ()
    # Name a passphrase, a password of several words, read as a password is ("frase de contraseña").
    passphrases: tuple[str, ...] = ()
    # Name a password only when its value has a digit ("clave", "chiave": also "the key to success").
    keys: tuple[str, ...] = ()
    # Name a PIN: its value is 4 to 8 digits.
    pins: tuple[str, ...] = ()
    # "Code", "combination": a secret when what it opens, or a card, is named with it.
    codes: tuple[str, ...] = ()
    # What a code opens: a door, a gate, an alarm, a safe.
    locks: tuple[str, ...] = ()
    # Name an access code alone ("digicode", "código de acceso").
    access: tuple[str, ...] = ()
    # A payment card: its code is its PIN, its security code its CVV.
    cards: tuple[str, ...] = ()
    # Name a card's security code alone ("CVV", "cryptogramme").
    card_codes: tuple[str, ...] = ()
    # "Security code": a card's CVV when a card is named with it.
    security_codes: tuple[str, ...] = ()
    # Two-factor recovery or backup codes.
    recovery: tuple[str, ...] = ()
    # A login or a network: near one, a value straight after a password's name is its password.
    logins: tuple[str, ...] = ()
    # A bank or its online banking: near one too; and a password, a PIN or a code said in a sentence
    # naming one is a bank login ("Onlinebanking: Anmeldename mueller84, PIN 61730").
    banks: tuple[str, ...] = ()
    # How the language says "is" (and "are", for a list).
    copulas: tuple[str, ...] = ()
    # "Now", "still": may stand before or after "is" ("ist jetzt", "теперь —").
    now: tuple[str, ...] = ()
    # Words that join a name to what it is of ("de la", "für", "dell'"): "the PIN of the card is ...".
    of: tuple[str, ...] = ()
    # Verbs that say what a code does to what it opens, among those words: "código para abrir el portal",
    # "code to get into the building".
    opens: tuple[str, ...] = ()
    # Verbs that say a code is keyed in, after what it opens: "para abrir el portal marca 2580",
    # "per entrare nel palazzo digita 1848".
    keyed: tuple[str, ...] = ()
    # "With", after what a code opens: "la puerta del garaje se abre con *1357", "Garagentor geht mit
    # Code 0815#". The number must then end its clause, or be followed by "and" or a particle.
    with_words: tuple[str, ...] = ()
    # The particle of a separable verb, which may follow the number: "schaltest du mit 2468 aus".
    particles: tuple[str, ...] = ()
    # Words that may follow a name before that ("la contraseña nueva de ...").
    after: tuple[str, ...] = ()
    # "And" between the items of a list of codes.
    and_words: tuple[str, ...] = ()
    # Words that, after "is", say what a password is like or where it is, rather than what it is;
    # separated by spaces.
    prose: str = ""
    # Endings of words that read as a state ("blocked", "bloqueada"), not a password chosen.
    state_endings: tuple[str, ...] = ()
    # A regular expression for the letters glued in front of a word (Hebrew ה, ל; Arabic ال, لل).
    prefixes: str = ""
    # How many words may stand between a name and its value with no "of" (a genitive: "код домофона").
    free_words: int = 0
    # The words for the digits 0 to 9, in order, each with its other forms after "|" ("dos|duas"): a PIN
    # or a code read out one digit at a time, as a voice note is transcribed ("cuatro siete siete uno").
    digits: tuple[str, ...] = ()
    # Nouns are capitalized: one capitalized word after "is" is a noun going on, unless after a colon.
    capitalized_nouns: bool = False
    # A word may follow a name, as an adjective or a noun does in Romance languages ("la carte bleue",
    # "contraseña wifi"); a password's value after one must then be no word ("CasaAzul2023").
    words_after: bool = False
    # A regular expression for a letter of the language's script, where it has its own: its rules then
    # read only text holding one (a Latin-script language leaves it empty).
    script: str = ""


# One word list a line, as people read them, rather than a word a line.
# fmt: off
ENGLISH = Language(
    code="en",
    digits=("zero|oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    passwords=("password", "passwd", "passcode", "pwd", "pw", "pswd", "pswrd", "p/w"),
    passphrases=("passphrase", "pass phrase"),
    pins=("pin", "pin number"),
    codes=("code", "combination", "combo", "pin", "keycode"),
    locks=(
        "gate", "door", "front door", "entry", "entrance", "building", "lobby", "garage", "parking",
        "alarm", "safe", "lock", "padlock", "locker", "lockbox", "key box", "keybox", "keypad",
        "intercom", "unlock", "access", "security",
    ),
    cards=("card", "visa", "mastercard", "amex", "credit", "debit"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "csc", "card security code"),
    security_codes=("security code",),
    recovery=("backup code*", "recovery code*", "emergency code*", "scratch code*"),
    logins=(
        "user", "username", "login", "email", "e-mail", "wi-fi", "wifi", "wlan", "wpa", "wpa2", "wpa3",
        "ssid", "router", "hotspot", "network",
    ),
    banks=(
        "bank*", "*banking", "chase", "barclays", "hsbc", "citibank", "wells fargo", "natwest", "lloyds",
        "santander", "monzo",
    ),
    copulas=("is", "was", "are", "were"),
    now=("now", "still", "set to", "changed to", "updated to"),
    of=(
        "for", "to", "of", "on", "at", "this", "next", "from", "the", "my", "our", "your", "his", "her",
        "their",
    ),
    opens=("open", "opens", "get into", "get in", "get in to", "enter", "unlock"),
    keyed=("dial", "type", "type in", "key in", "punch in", "enter", "press", "tap in"),
    with_words=("with", "using"),
    and_words=("and",),
    prose="""
        the a an my your his her their our its this that same different required incorrect wrong
        correct invalid valid expired expiring changed reset set stored saved kept managed shared
        written printed in on at for to of with from by not no none empty blank unknown unchanged
        secret encrypted hashed protected weak strong long short too very still now being been also
        only just and or but case-sensitive needed necessary optional mandatory missing forgotten lost
        known provided given below above attached here there somewhere elsewhere inside please see
        check ask use via yes true false ok fine easy hard simple complex complicated based taped sent
        rotated updated generated random temporary new old default min max minimum maximum least most
        1password bitwarden lastpass keepass keepassxc keychain vault dashlane mine yours ours hers
        theirs something nothing anything whatever what which gone broken stolen taken chosen frozen
        good bad better worse best worst right okay nice cool great terrible awful horrible cute funny
        silly stupid dumb lame clever smart tricky weird strange crazy odd secure insecure safe unsafe
        unique common rare basic standard normal typical trivial real fake fresh final public private
        personal important obvious unclear ready closed open
    """,
    state_endings=("ed", "ing", "able", "ible", "ous", "ful", "less", "tive", "sive", "ent"),
)

SPANISH = Language(
    code="es",
    digits=("cero", "uno|un|una", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"),
    words_after=True,
    passwords=("contraseña", "contrasena", "password"),
    passphrases=("frase de contraseña", "frase de paso", "frase secreta"),
    keys=("clave", "clave de acceso"),
    pins=("pin", "número pin", "numero pin", "número secreto", "numero secreto", "código pin", "clave pin"),
    codes=("código", "codigo", "clave", "combinación", "combinacion"),
    locks=(
        "puerta*", "portal*", "portón", "porton", "garaje*", "cochera*", "alarma*", "verja*", "cancela*",
        "reja*", "portero automático", "portero*", "telefonillo*", "interfono*", "caja fuerte",
        "cajas fuertes", "candado*", "edificio*", "finca", "urbanización", "trastero*", "buzón", "buzon",
        "taquilla*", "cerradura*", "caja de llaves", "parking",
    ),
    access=("código de acceso", "codigo de acceso", "código de entrada", "codigo de entrada"),
    cards=("tarjeta*", "visa", "mastercard", "amex"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "código cvv", "codigo cvv"),
    security_codes=("código de seguridad", "codigo de seguridad"),
    recovery=(
        "código* de recuperación", "codigo* de recuperacion", "código* de respaldo",
        "codigo* de respaldo", "código* de emergencia", "código* de copia de seguridad",
    ),
    logins=(
        "usuari*", "nombre de usuario", "login", "correo", "email", "e-mail", "dni", "nif", "wifi",
        "wi-fi", "red", "router", "rúter",
    ),
    banks=(
        "banc*", "bbva", "santander", "caixabank", "la caixa", "sabadell", "bankinter", "unicaja",
        "openbank", "kutxabank", "abanca",
    ),
    copulas=("es", "era", "son", "será", "sigue siendo"),
    now=("ahora", "ya", "todavía", "actualmente"),
    of=(
        "de", "del", "para", "en", "a", "al", "con", "la", "el", "los", "las", "mi", "mis", "tu", "tus",
        "su", "sus", "nuestro", "nuestra",
    ),
    opens=("abrir", "abre", "entrar", "acceder", "desbloquear"),
    keyed=(
        "marca", "marcas", "marcar", "teclea", "tecleas", "teclear", "pulsa", "digita", "introduce",
        "introducir", "mete", "metes",
    ),
    with_words=("con",),
    after=("nueva", "nuevo", "actual", "antigua", "antiguo", "vieja", "viejo"),
    and_words=("y", "e"),
    prose="""
        segura seguro insegura fuerte débil debil larga corta nueva nuevo vieja antigua temporal
        provisional válida valida inválida invalida incorrecta incorrecto correcta correcto igual
        distinta diferente misma mismo obligatoria necesaria personal privada secreta difícil dificil
        fácil facil complicada sencilla simple caducada mía tuya suya nuestra esta esa aquella otra
        ninguna cualquiera aquí aqui allí alli ahí ahi esto eso importante buena mala mejor peor única
        una muy tan para por con sin
        ver véase mira pregunta pregúntale abajo arriba adjunta guardada apuntada
    """,
    state_endings=("ada", "ado", "ida", "ido", "adas", "ados", "idas", "idos"),
)

FRENCH = Language(
    code="fr",
    digits=("zéro|zero", "un|une", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"),
    words_after=True,
    passwords=("mot de passe", "mots de passe", "mdp", "password"),
    passphrases=("phrase secrète", "phrase secrete", "phrase de passe", "passphrase"),
    keys=("clé", "clef"),
    pins=("code pin", "pin", "code secret", "code confidentiel", "code personnel", "code cb"),
    codes=("code", "combinaison"),
    locks=(
        "porte*", "portail*", "portillon", "immeuble*", "entrée", "garage*", "alarme*", "coffre*",
        "cadenas", "boîte à clés", "boite à clés", "boîte à clefs", "interphone*", "bâtiment*",
        "batiment*", "résidence*", "parking*", "hall", "casier*", "serrure*", "grille*", "barrière*",
        "antivol*",
    ),
    access=("digicode*", "code d'accès", "code d'acces", "code d'entrée", "code d'entree"),
    cards=("carte*", "cb", "visa", "mastercard", "amex"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "cryptogramme*", "code cvv", "code cvc"),
    security_codes=("code de sécurité", "code de securite"),
    recovery=("code* de secours", "code* de récupération", "code* de recuperation", "code* de sauvegarde"),
    logins=(
        "identifiant*", "utilisateur*", "nom d'utilisateur", "login", "email", "e-mail", "courriel",
        "wifi", "wi-fi", "box", "réseau", "routeur",
    ),
    banks=(
        "banque*", "bancaire*", "crédit agricole", "credit agricole", "société générale", "bnp*",
        "lcl", "caisse d'épargne", "crédit mutuel", "boursorama",
    ),
    copulas=("est", "c'est", "était", "c'était", "sont", "reste", "sera"),
    now=("maintenant", "désormais", "toujours", "actuellement"),
    of=(
        "de", "du", "des", "d'", "l'", "la", "le", "les", "pour", "à", "au", "aux", "sur", "mon", "ma",
        "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "votre", "leur",
    ),
    opens=("ouvrir", "ouvre", "entrer dans", "entrer", "accéder", "acceder", "déverrouiller"),
    keyed=("tape", "tapes", "tapez", "taper", "compose", "composez", "composer", "saisis", "saisir"),
    with_words=("avec",),
    after=("nouveau", "nouvel", "nouvelle", "actuel", "actuelle", "ancien", "ancienne", "provisoire"),
    and_words=("et",),
    prose="""
        faux fausse correct correcte incorrect incorrecte sûr sûre sur solide faible fort forte long
        longue court courte nouveau nouvelle ancien ancienne temporaire provisoire valide invalide
        pareil pareille différent différente identique obligatoire nécessaire personnel personnelle
        secret secrète simple compliqué difficile facile bon bonne mauvais mauvaise même ici dessus
        dessous dedans celui celle introuvable perdu oublié dans chez encore toujours pas plus très
        trop bien une des
        voir demander demande ci-dessous ci-dessus jointe enregistré noté
    """,
)

GERMAN = Language(
    code="de",
    digits=("null", "eins", "zwei|zwo", "drei", "vier", "fünf|fuenf", "sechs", "sieben", "acht", "neun"),
    passwords=("*passwort", "*kennwort"),
    passphrases=("passphrase", "*passphrase"),
    keys=("wlan-schlüssel", "netzwerkschlüssel", "wifi-schlüssel"),
    pins=("pin", "pin-code", "pin-nummer", "geheimzahl", "*geheimzahl", "geheimnummer", "kartenpin"),
    codes=("code", "kombination", "zahlenkombination"),
    locks=(
        "*tür*", "*tor", "alarm*", "garage*", "safe*", "tresor*", "schloss", "*schloss", "schließfach*",
        "schliessfach*", "haus", "eingang*", "gebäude*", "briefkasten*", "keybox", "schlüsselkasten*",
        "schlüsselbox", "zugang*",
    ),
    access=("zugangscode",),
    cards=("karte*", "*karte", "visa", "mastercard", "amex", "girocard"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "*prüfnummer", "prüfziffer"),
    security_codes=("sicherheitscode", "*sicherheitscode"),
    recovery=(
        "wiederherstellungscode*", "wiederherstellungsschlüssel", "backup-code*", "notfallcode*",
        "sicherungscode*",
    ),
    logins=(
        "benutzer*", "nutzer*", "anmeldename*", "login", "kennung", "e-mail", "email", "wlan", "wifi",
        "wi-fi", "router", "netzwerk",
    ),
    # Not "*bank": a "Datenbank" is a database.
    banks=(
        "bank*", "*banking", "sparkasse*", "volksbank*", "commerzbank", "postbank", "comdirect",
        "raiffeisen*",
    ),
    copulas=("ist", "lautet", "war", "heißt", "heisst", "sind", "lauten"),
    now=("jetzt", "nun", "ab jetzt", "immer noch", "noch"),
    of=(
        "für", "fürs", "vom", "von", "der", "des", "die", "das", "den", "dem", "zum", "zur", "im", "am",
        "bei", "beim", "auf", "an", "in", "meiner", "meines", "meinem", "meine", "mein", "unser",
        "unsere", "unseres",
    ),
    opens=("öffnen", "aufmachen", "aufschließen", "entsperren"),
    keyed=("tippe", "tippst", "tippen", "gib", "gibst", "eingeben", "wähle", "wählst", "drücke", "drück"),
    with_words=("mit",),
    particles=("ein", "aus", "auf", "ab"),
    and_words=("und",),
    prose="""
        falsch richtig sicher unsicher abgelaufen vergessen gesperrt geheim neu alt gleich anders
        lang kurz schwach stark gültig ungültig geändert unbekannt bekannt privat persönlich dasselbe
        dieselbe hier dort nicht kein keine irgendwo weg leer korrekt inkorrekt einfach schwierig
        kompliziert wichtig nötig notwendig erforderlich pflicht immer noch schon
        siehe frag fragen unten oben anbei gespeichert notiert
    """,
    capitalized_nouns=True,
)

PORTUGUESE = Language(
    code="pt",
    digits=("zero", "um|uma", "dois|duas", "três|tres", "quatro", "cinco", "seis|meia", "sete", "oito", "nove"),
    words_after=True,
    passwords=("senha", "palavra-passe", "password", "senha de acesso"),
    passphrases=("frase-senha", "frase secreta", "frase de senha", "frase-passe"),
    pins=("pin", "código pin", "codigo pin", "número pin", "numero pin"),
    codes=("código", "codigo", "combinação", "combinacao"),
    locks=(
        "portão", "portao", "porta*", "portaria", "prédio", "predio", "edifício", "edificio", "alarme*",
        "cofre*", "garage*", "interfone*", "condomínio", "condominio", "cadeado*", "fechadura*",
        "cacifo*",
    ),
    # "Segredo": what a safe's combination is called.
    access=("código de acesso", "codigo de acesso", "segredo do cofre"),
    cards=("cartão", "cartao", "cartões", "visa", "mastercard", "amex", "multibanco"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "código cvv", "codigo cvv"),
    security_codes=("código de segurança", "codigo de seguranca"),
    recovery=(
        "código* de backup", "codigo* de backup", "código* de recuperação", "codigo* de recuperacao",
        "código* de emergência",
    ),
    logins=(
        "usuário", "usuario", "utilizador", "login", "e-mail", "email", "cpf",
        "agência", "agencia", "wi-fi", "wifi", "rede", "roteador", "router",
    ),
    # "Senha eletrônica": what Brazilian banks call the password of internet banking.
    banks=(
        "banc*", "*banking", "senha eletrônica", "senha eletronica", "itaú", "itau", "bradesco",
        "nubank", "santander", "caixa econômica", "caixa economica", "millennium", "agência", "agencia",
    ),
    copulas=("é", "era", "são", "será"),
    now=("agora", "ainda", "atualmente"),
    of=(
        "de", "do", "da", "dos", "das", "para", "no", "na", "nos", "nas", "ao", "à", "o", "a", "os", "as",
        "meu", "minha", "teu", "tua", "seu", "sua", "nosso", "nossa",
    ),
    opens=("abrir", "abre", "entrar", "acessar", "aceder", "destrancar"),
    keyed=("digita", "digite", "digitar", "disca", "disque", "tecla", "tecle", "marca", "marque"),
    with_words=("com",),
    after=("nova", "novo", "atual", "antiga", "antigo"),
    and_words=("e",),
    prose="""
        errada correta fraca forte segura insegura longa curta nova antiga velha temporária
        temporaria provisória provisoria válida valida inválida invalida igual diferente mesma
        obrigatória obrigatoria necessária necessaria pessoal secreta difícil dificil fácil facil
        simples boa melhor pior minha tua sua nossa essa esta aquela outra nenhuma aqui ali isso
        isto uma muito
        ver veja pergunte abaixo acima anexo salva anotada
    """,
    state_endings=("ada", "ado", "ida", "ido", "adas", "ados", "idas", "idos"),
)

ITALIAN = Language(
    code="it",
    digits=("zero", "uno|una", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"),
    words_after=True,
    passwords=("password", "parola d'ordine"),
    passphrases=("passphrase", "frase segreta", "frase d'accesso"),
    keys=("chiave",),
    pins=("pin", "codice pin", "codice segreto", "numero segreto"),
    codes=("codice", "combinazione"),
    locks=(
        "portone*", "porta*", "cancell*", "citofono*", "allarme*", "cassaforte*", "cassa forte",
        "garage*", "box", "palazzo*", "edificio*", "lucchetto*", "armadietto*", "condominio*",
        "ingresso*", "portineria", "serratura*", "antifurto*",
    ),
    access=("codice d'accesso", "codice di accesso", "codice d'ingresso", "codice di ingresso"),
    cards=("carta*", "bancomat", "postepay", "visa", "mastercard", "amex"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "codice cvv", "codice cvc"),
    security_codes=("codice di sicurezza",),
    recovery=("codic* di recupero", "codic* di backup", "codic* di emergenza", "codic* di ripristino"),
    logins=(
        "utente", "nome utente", "username", "login", "email", "e-mail", "wifi", "wi-fi", "rete",
        "router",
    ),
    banks=(
        "banca*", "bancari*", "*banking", "intesa", "unicredit", "fineco", "bper", "mediolanum",
    ),
    copulas=("è", "e'", "era", "sono", "sarà"),
    now=("ora", "adesso", "ancora", "attualmente"),
    of=(
        "di", "del", "della", "dello", "dell'", "dei", "degli", "delle", "d'", "per", "al", "alla",
        "allo", "all'", "ai", "alle", "il", "la", "lo", "l'", "mio", "mia", "tuo", "tua", "suo", "sua",
        "nostro", "nostra", "sul", "sulla", "nel", "nella",
    ),
    opens=("aprire", "apre", "entrare", "accedere", "sbloccare"),
    keyed=("digita", "digiti", "digitare", "componi", "comporre", "premi", "inserisci", "batti"),
    with_words=("con", "col"),
    after=("nuova", "nuovo", "attuale", "vecchia", "vecchio"),
    and_words=("e", "ed"),
    prose="""
        sicura insicura debole forte lunga corta nuova vecchia temporanea provvisoria valida scaduta
        sbagliata giusta corretta errata uguale diversa stessa obbligatoria necessaria personale
        segreta difficile facile semplice complicata buona cattiva migliore peggiore mia tua sua nostra
        questa quella altra nessuna qui qua scritta salvata una molto
        vedi vedere chiedi sotto sopra allegata
    """,
    state_endings=("ata", "ato", "ita", "ito", "uta", "uto"),
)

RUSSIAN = Language(
    code="ru",
    digits=("ноль|нуль", "один|одна", "два|две", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"),
    passwords=("парол*", "кодовое слово"),
    passphrases=("парольная фраза", "кодовая фраза"),
    pins=("пин-код", "pin-код", "пин", "pin", "пинкод"),
    codes=("код*", "комбинаци*", "шифр*"),
    locks=(
        "домофон*", "подъезд*", "двер*", "калитк*", "ворот*", "сигнализаци*", "гараж*", "сейф*", "замк*",
        "замок", "шлагбаум*", "ячейк*", "квартир*",
    ),
    access=("код доступа",),
    cards=("карт*", "кредитк*", "дебетовк*", "банкомат*", "visa", "mastercard"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "cvv-код", "cvc-код", "cvv2-код", "cvc2-код"),
    security_codes=("код безопасности",),
    recovery=("резервн* код*", "код* восстановлени*", "запасн* код*"),
    logins=(
        "логин*", "пользовател*", "почт*", "email", "e-mail", "вайфа*", "вай-фа*", "wi-fi", "wifi",
        "роутер*",
    ),
    # Glued, as in "Сбербанк"; a "банкомат" (a cash machine) is a card's, among the cards.
    banks=("*банк*", "сбер", "втб", "тинькофф*"),
    copulas=("это", "будет"),
    now=("теперь", "сейчас", "всё ещё", "все еще"),
    of=("от", "для", "к", "на", "в"),
    keyed=("набери", "наберите", "набрать", "введи", "введите", "ввести", "нажми"),
    and_words=("и",),
    prose="""
        см смотри спроси ниже выше здесь там есть нет сложный простой новый старый секретный неверный
        верный другой такой
    """,
    free_words=3,
    script="[а-яёА-ЯЁ]",
)

ARABIC = Language(
    code="ar",
    digits=("صفر", "واحد", "اثنان|اثنين|اتنين", "ثلاثة|ثلاثه|تلاتة", "أربعة|اربعة|اربعه|أربعه", "خمسة|خمسه", "ستة|سته", "سبعة|سبعه", "ثمانية|ثمانيه|تمانية", "تسعة|تسعه"),
    passwords=("كلمة مرور", "كلمة سر", "باسورد", "باسوورد"),
    passphrases=("عبارة مرور", "عبارة سر"),
    pins=("رقم سري", "رمز سري", "رقم تعريف شخصي", "رمز pin", "pin"),
    codes=("رمز", "كود", "رقم سري", "رمز سري", "كلمة سر"),
    locks=(
        "باب", "بوابة", "بوابه", "عمارة", "عماره", "مبنى", "بناية", "إنذار", "انذار", "خزنة", "خزينة",
        "جراج", "كراج", "مرآب", "انتركم", "إنتركم", "قفل", "شقة",
    ),
    access=("رمز دخول", "كود دخول", "رمز وصول"),
    cards=("بطاقة", "بطاقه", "بطاقتي", "كارت", "فيزا", "ماستركارد", "visa", "mastercard"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2", "رمز cvv"),
    security_codes=("رمز أمان", "رمز امان", "رمز حماية"),
    recovery=("رموز استرداد", "رمز استرداد", "رموز استعادة", "رمز استعادة", "رموز احتياطية"),
    logins=(
        "اسم مستخدم", "مستخدم", "إيميل", "ايميل", "بريد", "واي فاي", "wifi", "wi-fi", "راوتر",
    ),
    banks=("بنك*", "مصرف*"),
    copulas=("هو", "هي"),
    now=("الآن", "الان", "حاليا", "حاليًا"),
    of=("ل", "الخاص", "الخاصة", "إلى", "الى", "في"),
    keyed=("اكتب", "ادخل", "أدخل", "اضغط"),
    and_words=("و",),
    prose="انظر اسأل أدناه أعلاه هنا هناك جديدة قديمة قوية ضعيفة صحيحة خاطئة سرية",
    # و and, ف so, ب with, ل for, ك like, ال the, لل for the.
    prefixes="(?:[وف]?(?:لل|[بلك]?ال|[بلك])?)",
    free_words=3,
    script="[\u0600-\u06ff]",
)

HEBREW = Language(
    code="he",
    digits=("אפס", "אחת|אחד", "שתיים|שתים|שניים|שנים", "שלוש|שלושה", "ארבע|ארבעה", "חמש|חמישה", "שש|שישה", "שבע|שבעה", "שמונה", "תשע|תשעה"),
    passwords=("סיסמ*", "ססמ*", "פסוורד"),
    passphrases=("משפט סיסמ*", "ביטוי סיסמ*"),
    pins=("קוד סודי", "קוד pin", "pin", "פין"),
    codes=("קוד", "צירוף"),
    locks=(
        "שער", "כניסה", "דלת", "בניין", "בנין", "לובי", "חניה", "חניון", "אזעקה", "כספת", "מנעול",
        "אינטרקום", "לוקר",
    ),
    access=("קוד כניסה", "קוד גישה"),
    cards=("כרטיס", "אשראי", "ויזה", "מאסטרקארד", "ישראכרט", "visa", "mastercard", "amex"),
    card_codes=("cvv", "cvv2", "cvc", "cvc2"),
    security_codes=("קוד אבטחה",),
    recovery=("קודי גיבוי", "קוד גיבוי", "קודי שחזור", "קוד שחזור"),
    logins=("שם משתמש", "משתמש", "מייל", "אימייל", "ויפי", "וויפי", "wifi", "wi-fi", "רשת", "ראוטר"),
    banks=("בנק*",),
    copulas=("היא", "הוא", "זה", "זו", "הם", "הן"),
    now=("עכשיו", "כעת"),
    of=("של", "עבור"),
    keyed=("הקש", "הקישו", "תקיש", "תקישי", "להקיש", "הקלד", "תקליד"),
    with_words=("עם",),
    and_words=("ו",),
    prose="ראה ראו בדוק בדקו שאל שאלי אצל כמו בכספת במנהל אין ללא חדשה ישנה זהה שונה שמורה נמצאת",
    # ו and, ה the, ש that, ל to, ב in, מ from, כ like; "ה-PIN" with a hyphen.
    prefixes="(?:[והשלבמכ]{1,3}-?)?",
    free_words=3,
    script="[\u0590-\u05ff]",
)

# Passwords only: the words were in the English rules before the table.
_LOGINS = ("user", "username", "login", "email", "e-mail", "wifi", "wi-fi")
DUTCH = Language(
    code="nl", passwords=("wachtwoord",), logins=(*_LOGINS, "gebruiker*"), copulas=("is",), of=("voor", "van"),
)
POLISH = Language(
    code="pl", passwords=("hasło", "haslo"), logins=(*_LOGINS, "użytkownik*"), copulas=("jest", "to"),
    of=("do", "dla"),
)
SWEDISH = Language(
    code="sv", passwords=("lösenord", "losenord"), logins=(*_LOGINS, "användar*"), copulas=("är", "var"),
    of=("till", "för"), prose="fel",
)
FINNISH = Language(code="fi", passwords=("salasana",), logins=(*_LOGINS, "käyttäjä*"), copulas=("on",))
NORWEGIAN = Language(
    code="no", passwords=("passord",), logins=(*_LOGINS, "bruker*"), copulas=("er",), of=("til", "for"),
    prose="feil",
)
# fmt: on

LANGUAGES: tuple[Language, ...] = (
    ENGLISH,
    SPANISH,
    FRENCH,
    GERMAN,
    PORTUGUESE,
    ITALIAN,
    RUSSIAN,
    ARABIC,
    HEBREW,
    DUTCH,
    POLISH,
    SWEDISH,
    FINNISH,
    NORWEGIAN,
)
