// The seeded garment catalogue. Names and prices follow the blanks print shops actually stock; every garment's
// images are rendered from its silhouette (see ./blanks), so the zone geometry is exact on every color.
import type { Silhouette } from '../../lib/blanks';

export interface CatalogColor {
  name: string;
  hex: string;
  available?: boolean;
}

export interface CatalogGarment {
  id: string;
  name: string;
  brand: string;
  category: 't-shirts' | 'hoodies' | 'sweatshirts' | 'tanks' | 'long-sleeves' | 'polos';
  basePrice: number;
  silhouette: Silhouette;
  sizes: string[];
  colors: CatalogColor[];
}

const C = {
  white: { name: 'White', hex: '#F7F7F5' },
  black: { name: 'Black', hex: '#1C1C1E' },
  navy: { name: 'Navy', hex: '#1F2A44' },
  sportGrey: { name: 'Sport Grey', hex: '#A3A7AB' },
  heather: { name: 'Heather Grey', hex: '#B5B5B2' },
  charcoal: { name: 'Charcoal', hex: '#3E4145' },
  red: { name: 'Red', hex: '#B3262E' },
  maroon: { name: 'Maroon', hex: '#5A1E2A' },
  royal: { name: 'Royal Blue', hex: '#2B4C9B' },
  forest: { name: 'Forest Green', hex: '#24432F' },
  military: { name: 'Military Green', hex: '#5B5F3C' },
  sand: { name: 'Sand', hex: '#D8C8A8' },
  pepper: { name: 'Pepper', hex: '#57585A' },
  ivory: { name: 'Ivory', hex: '#EFE8D8' },
  athletic: { name: 'Athletic Heather', hex: '#C3C4C6' },
  dustyRose: { name: 'Dusty Rose', hex: '#C99A96' },
} satisfies Record<string, CatalogColor>;

const ADULT = ['S', 'M', 'L', 'XL', '2XL', '3XL'];
const ADULT_XS = ['XS', 'S', 'M', 'L', 'XL', '2XL'];

export const CATALOG: CatalogGarment[] = [
  {
    id: 'gildan-5000-heavy-cotton-tee',
    name: 'Heavy Cotton T-Shirt',
    brand: 'Gildan',
    category: 't-shirts',
    basePrice: 4.5,
    silhouette: 'tee',
    sizes: [...ADULT, '4XL', '5XL'],
    colors: [C.white, C.black, C.navy, C.sportGrey, C.red, C.forest, C.maroon],
  },
  {
    id: 'bella-canvas-3001-jersey-tee',
    name: 'Unisex Jersey Short Sleeve Tee',
    brand: 'Bella+Canvas',
    category: 't-shirts',
    basePrice: 6.25,
    silhouette: 'tee',
    sizes: ADULT_XS,
    colors: [C.white, C.black, C.navy, C.athletic, C.military, { ...C.dustyRose, available: false }],
  },
  {
    id: 'next-level-3600-cotton-tee',
    name: 'Cotton Short Sleeve Crew',
    brand: 'Next Level',
    category: 't-shirts',
    basePrice: 5.75,
    silhouette: 'tee',
    sizes: ADULT_XS,
    colors: [C.white, C.black, C.royal, C.heather, C.sand],
  },
  {
    id: 'comfort-colors-1717-garment-dyed-tee',
    name: 'Garment-Dyed Heavyweight Tee',
    brand: 'Comfort Colors',
    category: 't-shirts',
    basePrice: 9.5,
    silhouette: 'tee',
    sizes: ADULT,
    colors: [C.ivory, C.black, C.pepper, C.navy, C.sand],
  },
  {
    id: 'gildan-18500-heavy-blend-hoodie',
    name: 'Heavy Blend Hooded Sweatshirt',
    brand: 'Gildan',
    category: 'hoodies',
    basePrice: 15.5,
    silhouette: 'hoodie',
    sizes: [...ADULT, '4XL', '5XL'],
    colors: [C.white, C.black, C.navy, C.sportGrey, C.maroon, C.forest],
  },
  {
    id: 'independent-ss4500-midweight-hoodie',
    name: 'Midweight Hooded Sweatshirt',
    brand: 'Independent Trading Co.',
    category: 'hoodies',
    basePrice: 19.0,
    silhouette: 'hoodie',
    sizes: ADULT_XS,
    colors: [C.black, C.charcoal, C.heather, C.sand, C.royal],
  },
  {
    id: 'champion-s700-powerblend-hoodie',
    name: 'Powerblend Pullover Hoodie',
    brand: 'Champion',
    category: 'hoodies',
    basePrice: 24.0,
    silhouette: 'hoodie',
    sizes: ADULT,
    colors: [C.black, C.navy, C.red, C.athletic],
  },
  {
    id: 'gildan-18000-heavy-blend-crewneck',
    name: 'Heavy Blend Crewneck Sweatshirt',
    brand: 'Gildan',
    category: 'sweatshirts',
    basePrice: 11.75,
    silhouette: 'crewneck',
    sizes: [...ADULT, '4XL', '5XL'],
    colors: [C.white, C.black, C.navy, C.sportGrey, C.maroon],
  },
  {
    id: 'independent-ss3000-midweight-crewneck',
    name: 'Midweight Crewneck Sweatshirt',
    brand: 'Independent Trading Co.',
    category: 'sweatshirts',
    basePrice: 16.5,
    silhouette: 'crewneck',
    sizes: ADULT_XS,
    colors: [C.black, C.heather, C.sand, C.forest],
  },
  {
    id: 'bella-canvas-3480-jersey-tank',
    name: 'Unisex Jersey Tank',
    brand: 'Bella+Canvas',
    category: 'tanks',
    basePrice: 6.0,
    silhouette: 'tank',
    sizes: ADULT_XS,
    colors: [C.white, C.black, C.athletic, C.navy, C.red],
  },
  {
    id: 'next-level-6733-racerback-tank',
    name: 'Tri-Blend Racerback Tank',
    brand: 'Next Level',
    category: 'tanks',
    basePrice: 7.25,
    silhouette: 'tank',
    sizes: ['XS', 'S', 'M', 'L', 'XL', '2XL'],
    colors: [C.white, C.black, C.heather, C.royal],
  },
  {
    id: 'gildan-5400-heavy-cotton-long-sleeve',
    name: 'Heavy Cotton Long Sleeve T-Shirt',
    brand: 'Gildan',
    category: 'long-sleeves',
    basePrice: 8.25,
    silhouette: 'longsleeve',
    sizes: [...ADULT, '4XL'],
    colors: [C.white, C.black, C.navy, C.sportGrey, C.forest],
  },
  {
    id: 'bella-canvas-3501-jersey-long-sleeve',
    name: 'Unisex Jersey Long Sleeve Tee',
    brand: 'Bella+Canvas',
    category: 'long-sleeves',
    basePrice: 10.5,
    silhouette: 'longsleeve',
    sizes: ADULT_XS,
    colors: [C.white, C.black, C.heather, C.military],
  },
  {
    id: 'gildan-8800-dryblend-polo',
    name: 'DryBlend Jersey Polo',
    brand: 'Gildan',
    category: 'polos',
    basePrice: 12.0,
    silhouette: 'polo',
    sizes: ADULT,
    colors: [C.white, C.black, C.navy, C.red, C.sportGrey],
  },
];

export const ZONE_NAMES: Record<string, string> = {
  front: 'Front',
  back: 'Back',
  'left-chest': 'Left Chest',
  'right-chest': 'Right Chest',
};

export const ZONE_ORDER = ['front', 'back', 'left-chest', 'right-chest'] as const;

export const colorSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
