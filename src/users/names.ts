// Common Norwegian given names (by gender and by the decade people were born in) and family names,
// after Statistics Norway's name statistics.

/** Given names common among people born before 1975. */
// prettier-ignore
const OLDER = {
  male: [
    'Jan', 'Per', 'Bjørn', 'Ole', 'Lars', 'Kjell', 'Knut', 'Arne', 'Svein', 'Hans', 'Geir', 'Tor',
    'Terje', 'Odd', 'Rune', 'Trond', 'John', 'Tore', 'Jon', 'Harald', 'Olav', 'Gunnar', 'Rolf', 'Leif',
    'Einar', 'Kåre', 'Nils', 'Egil', 'Helge', 'Steinar', 'Erik', 'Morten', 'Roar', 'Frode', 'Øyvind',
    'Ragnar', 'Sverre', 'Jostein', 'Asbjørn', 'Halvor',
  ],
  female: [
    'Anne', 'Inger', 'Kari', 'Marit', 'Ingrid', 'Liv', 'Eva', 'Berit', 'Astrid', 'Bjørg', 'Hilde',
    'Anna', 'Solveig', 'Randi', 'Ragnhild', 'Elisabeth', 'Turid', 'Gerd', 'Grete', 'Wenche', 'Åse',
    'Gunn', 'Sigrid', 'Unni', 'Laila', 'Torill', 'Reidun', 'Aud', 'Jorunn', 'Synnøve', 'Tone', 'Heidi',
    'Hanne', 'Kirsten', 'Gro', 'Britt', 'Else', 'Karin', 'Bodil', 'Marianne',
  ],
} as const;

/** Given names common among people born from 1975 on. */
// prettier-ignore
const YOUNGER = {
  male: [
    'Thomas', 'Martin', 'Andreas', 'Anders', 'Kristian', 'Magnus', 'Jonas', 'Daniel', 'Espen',
    'Fredrik', 'Henrik', 'Eirik', 'Håkon', 'Sindre', 'Emil', 'Mathias', 'Tobias', 'Sander', 'Jakob',
    'Markus', 'Kristoffer', 'Sigurd', 'Vegard', 'Stian', 'Even', 'Ola', 'Petter', 'Marius', 'Alexander',
    'Simen', 'Joakim', 'Adrian', 'Sebastian', 'Ole', 'Erlend', 'Aleksander', 'Eskil', 'Vetle', 'Torbjørn',
    'Christian',
  ],
  female: [
    'Ida', 'Nina', 'Kristin', 'Silje', 'Camilla', 'Mari', 'Emma', 'Nora', 'Sara', 'Sofie', 'Ingeborg',
    'Maja', 'Thea', 'Julie', 'Emilie', 'Ane', 'Marte', 'Guro', 'Tuva', 'Frida', 'Karoline', 'Vilde',
    'Ingrid', 'Hanna', 'Maria', 'Linn', 'Stine', 'Kristine', 'Martine', 'Malin', 'Helene', 'Ragnhild',
    'Marthe', 'Eline', 'Siri', 'Solveig', 'Tiril', 'Andrea', 'Mathilde', 'Live',
  ],
} as const;

// prettier-ignore
export const FAMILY_NAMES = [
  'Hansen', 'Johansen', 'Olsen', 'Larsen', 'Andersen', 'Pedersen', 'Nilsen', 'Kristiansen', 'Jensen',
  'Karlsen', 'Johnsen', 'Pettersen', 'Eriksen', 'Berg', 'Haugen', 'Hagen', 'Johannessen', 'Andreassen',
  'Jacobsen', 'Dahl', 'Jørgensen', 'Halvorsen', 'Henriksen', 'Lund', 'Sørensen', 'Jakobsen', 'Moen',
  'Gundersen', 'Iversen', 'Strand', 'Solberg', 'Svendsen', 'Eide', 'Knutsen', 'Martinsen', 'Paulsen',
  'Bakken', 'Kristoffersen', 'Mathisen', 'Lie', 'Amundsen', 'Rasmussen', 'Lunde', 'Solheim', 'Berge',
  'Moe', 'Nygård', 'Bakke', 'Kristensen', 'Fredriksen', 'Holm', 'Lien', 'Hauge', 'Christensen',
  'Andresen', 'Nielsen', 'Knudsen', 'Evensen', 'Sæther', 'Aas', 'Myhre', 'Hanssen', 'Haugland',
  'Thomassen', 'Sivertsen', 'Simonsen', 'Danielsen', 'Berntsen', 'Sandvik', 'Rønning', 'Arnesen',
  'Antonsen', 'Næss', 'Vik', 'Haug', 'Ellingsen', 'Thorsen', 'Edvardsen', 'Birkeland', 'Isaksen',
  'Gulbrandsen', 'Ruud', 'Aasen', 'Strøm', 'Myklebust', 'Tangen', 'Ødegård', 'Eliassen', 'Helland',
  'Bøe', 'Aune', 'Mikkelsen', 'Tveit', 'Brekke', 'Abrahamsen', 'Madsen', 'Nordmann', 'Nguyen', 'Ali',
  'Ahmed',
] as const;

export function givenNames(gender: 'male' | 'female', birthYear: number): readonly string[] {
  return (birthYear < 1975 ? OLDER : YOUNGER)[gender];
}

/** A name as it may appear in a username: lower case ASCII, æ → ae, ø → o, å → aa. */
export function asciiName(name: string): string {
  let ascii = asciiNames.get(name);
  if (ascii === undefined) {
    ascii = toAscii(name);
    asciiNames.set(name, ascii);
  }
  return ascii;
}

const asciiNames = new Map<string, string>();

function toAscii(name: string): string {
  return name
    .toLowerCase()
    .replaceAll('æ', 'ae')
    .replaceAll('ø', 'o')
    .replaceAll('å', 'aa')
    .normalize('NFD')
    .replace(/[^a-z]/g, '');
}
