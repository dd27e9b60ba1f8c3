//! Each documented key pair read to its quantity and unit.

use super::*;

/// A section 4 payload of template 4.40 for `number` and `constituent`, its step in hours and
/// its level (type, value).
fn t40(number: u8, constituent: u16, step_hours: u32, level: (u8, u32)) -> Vec<u8> {
    let mut s = vec![0u8; 29];
    s[at(8)..at(10)].copy_from_slice(&40u16.to_be_bytes());
    s[at(10)] = 20;
    s[at(11)] = number;
    s[at(12)..at(14)].copy_from_slice(&constituent.to_be_bytes());
    s[at(20)] = 1;
    s[at(21)..at(25)].copy_from_slice(&step_hours.to_be_bytes());
    s[at(25)] = level.0;
    s[at(27)..at(31)].copy_from_slice(&level.1.to_be_bytes());
    s
}

/// A section 4 payload of aerosol template `tmpl` (4.44 or 4.50) of particulate matter of
/// size `scaled` × 10^-`scale` m, its step in hours.
fn aerosol(tmpl: u16, scale: u8, scaled: u32, step_hours: u16) -> Vec<u8> {
    let mut s = vec![0u8; 42];
    s[at(8)..at(10)].copy_from_slice(&tmpl.to_be_bytes());
    s[at(10)] = 20;
    s[at(12)..at(14)].copy_from_slice(&PARTICULATE_MATTER.to_be_bytes());
    s[at(15)] = scale;
    s[at(16)..at(20)].copy_from_slice(&scaled.to_be_bytes());
    s[at(31)] = 1;
    if tmpl == 44 {
        s[at(32)..at(34)].copy_from_slice(&step_hours.to_be_bytes());
    } else {
        s[at(32)..at(36)].copy_from_slice(&u32::from(step_hours).to_be_bytes());
    }
    s
}

const SURFACE: (u8, u32) = (1, 0);

fn pollutant(p: Pollutant) -> Target {
    Target::Quantity(Quantity::Pollutant(p))
}

#[test]
fn every_documented_european_key_pair_is_read_to_its_quantity() {
    let table: [(u8, u16, Target); 12] = [
        (0, 40009, pollutant(Pollutant::Pm25)),
        (0, 40008, pollutant(Pollutant::Pm10)),
        (0, 0, pollutant(Pollutant::O3)),
        (0, 5, pollutant(Pollutant::No2)),
        (0, 8, pollutant(Pollutant::So2)),
        (0, 4, pollutant(Pollutant::Co)),
        (59, 62100, Target::PollenSpecies(Plant::Alder)),
        (59, 62101, Target::PollenSpecies(Plant::Birch)),
        (59, 64002, Target::PollenSpecies(Plant::Olive)),
        (59, 62300, Target::PollenSpecies(Plant::Grass)),
        (59, 62201, Target::PollenSpecies(Plant::Mugwort)),
        (59, 62200, Target::PollenSpecies(Plant::Ragweed)),
    ];
    for (number, constituent, target) in table {
        let r = recognise(Product::Europe, 0, &t40(number, constituent, 0, SURFACE))
            .unwrap_or_else(|e| panic!("{number}/{constituent}: {e:?}"));
        assert_eq!(r.target, target, "{number}/{constituent}");
        assert_eq!(r.product, Product::Europe);
        let unit = if number == 59 {
            Unit::PerM3
        } else {
            Unit::KgPerM3OrUgPerM3
        };
        assert_eq!(r.unit, unit, "{number}/{constituent}");
    }
}

#[test]
fn european_constituents_not_served_are_skipped_as_such() {
    // NO, NH₃, dust, PM10 from wildfires; a pollen species with no type.
    for (number, constituent) in [(0, 11), (0, 9), (0, 62001), (0, 62096), (59, 62104)] {
        let e = recognise(Product::Europe, 0, &t40(number, constituent, 0, SURFACE)).unwrap_err();
        assert_eq!(e.0, SkipReason::NotServed, "{number}/{constituent}");
        assert!(e.1.contains(&constituent.to_string()), "{}", e.1);
    }
    // The global product's particles are not the European product's keys.
    let e = recognise(Product::Europe, 0, &aerosol(50, 7, 25, 0)).unwrap_err();
    assert_eq!(e.0, SkipReason::NotServed);
}

#[test]
fn every_global_key_is_read_to_its_quantity_and_unit() {
    for (tmpl, scale, scaled, pm) in [
        (50, 7, 25, Pollutant::Pm25),
        (50, 6, 10, Pollutant::Pm10),
        (44, 7, 25, Pollutant::Pm25),
        (48, 5, 1, Pollutant::Pm10),
    ] {
        let r = recognise(Product::Global, 0, &aerosol(tmpl, scale, scaled, 3)).unwrap();
        assert_eq!(
            (r.target, r.unit),
            (pollutant(pm), Unit::KgPerM3),
            "4.{tmpl}"
        );
    }
    let e = recognise(Product::Global, 0, &aerosol(50, 6, 1, 0)).unwrap_err();
    assert_eq!(e.0, SkipReason::NotServed);
    for (constituent, gas) in [
        (5, Pollutant::No2),
        (0, Pollutant::O3),
        (8, Pollutant::So2),
        (4, Pollutant::Co),
    ] {
        for level in [SURFACE, (105, LOWEST_MODEL_LEVEL)] {
            let r = recognise(Product::Global, 0, &t40(2, constituent, 0, level)).unwrap();
            assert_eq!(r.target, pollutant(gas));
            assert_eq!(r.unit, Unit::MixingRatio(gas));
        }
    }
    let e = recognise(Product::Global, 0, &t40(2, 5, 0, (105, 60))).unwrap_err();
    assert_eq!(e.0, SkipReason::OtherLevel);
    assert!(e.1.contains("level 60"), "{}", e.1);
    // A European key pair in a global file is not read as the European product's.
    let e = recognise(Product::Global, 0, &t40(0, 40009, 0, SURFACE)).unwrap_err();
    assert_eq!(e.0, SkipReason::NotServed);
    let e = recognise(Product::Global, 10, &t40(0, 5, 0, SURFACE)).unwrap_err();
    assert_eq!(e.0, SkipReason::NotAConstituent);
    assert!(e.1.contains("discipline 10"), "{}", e.1);
    assert!(recognise(Product::Global, 0, &t40(0, 5, 0, SURFACE)[..4]).is_err());
}

#[test]
fn the_product_is_named_by_its_producer_and_the_model_by_its_setting() {
    assert_eq!(product(98, 0, EuropeModel::Ensemble), Ok(Product::Global));
    for model in EuropeModel::ALL {
        let (centre, sub) = model.producer();
        assert_eq!(
            product(centre, sub, model),
            Ok(Product::Europe),
            "{model:?}"
        );
        assert_eq!(EuropeModel::from_name(model.name()), Some(model));
        if model != EuropeModel::Ensemble {
            let e = product(centre, sub, EuropeModel::Ensemble).unwrap_err();
            assert_eq!(e.0, SkipReason::OtherModel, "{model:?}");
        }
    }
    assert_eq!(EuropeModel::default().producer(), (85, 2));
    assert_eq!(
        product(7, 0, EuropeModel::Ensemble).unwrap_err().0,
        SkipReason::UnknownProducer
    );
}

#[test]
fn steps_are_read_in_each_templates_layout_and_bounded() {
    assert_eq!(step_seconds(&t40(2, 5, 3, SURFACE)), Ok(3 * 3600));
    // 4.44's forecast time is two octets: the bytes after them are not part of it.
    let mut t44 = aerosol(44, 7, 25, 6);
    t44[at(34)] = 0xff;
    assert_eq!(step_seconds(&t44), Ok(6 * 3600));
    assert_eq!(step_seconds(&aerosol(50, 7, 25, 9)), Ok(9 * 3600));
    assert_eq!(
        step_seconds(&t40(2, 5, 16 * 24, SURFACE)),
        Ok(MAX_STEP_SECONDS)
    );
    let past = step_seconds(&t40(2, 5, 16 * 24 + 1, SURFACE)).unwrap_err();
    assert!(past.contains("16 days"), "{past}");
    assert!(step_seconds(&t40(2, 5, u32::MAX, SURFACE)).is_err());
    let mut seconds = t40(2, 5, u32::MAX, SURFACE);
    seconds[at(20)] = 13;
    assert!(step_seconds(&seconds).is_err());
}

#[test]
fn mixing_ratios_become_ug_m3_at_20_c_with_molar_masses_alone() {
    for gas in [Pollutant::No2, Pollutant::O3, Pollutant::So2, Pollutant::Co] {
        let mm = gas.molar_mass().unwrap();
        // 1 ppb by volume, as a mass mixing ratio.
        let mmr = 1e-9 * mm / MOLAR_MASS_DRY_AIR;
        let ug = mmr * mixing_ratio_factor(gas);
        assert!((ug - mm / 24.055).abs() < 1e-9, "{gas:?}: {ug}");
        // The US index reads the same concentration back as 1 ppb at 20 °C, and converts at
        // its own 25 °C from there.
        let c = Concentration::new(ug).unwrap();
        let ppb = c.to_ppb(gas, aq_core::STATED_AT).unwrap();
        assert!((ppb - 1.0).abs() < 1e-9);
    }
}

#[test]
fn a_european_field_in_ug_m3_under_kg_m3_is_read_by_its_magnitude() {
    let ug = [0.0, 3.5, 12.0, 40.0, 8.0];
    let kg = [0.0, 3.5e-9, 12e-9, 40e-9, 8e-9];
    assert_eq!(Unit::KgPerM3OrUgPerM3.factor(&ug), (1.0, true));
    assert_eq!(Unit::KgPerM3OrUgPerM3.factor(&kg), (1e9, false));
    // A global field is never reread: its unit is what it declares.
    assert_eq!(Unit::KgPerM3.factor(&ug), (1e9, false));
    // A few spikes do not make a kg m⁻³ field µg/m³.
    let spiky = [1e-9, 2e-9, 1e-9, 5.0, 3e-9];
    assert!(!looks_like_ug_m3(&spiky));
    assert!(!looks_like_ug_m3(&[f32::NAN]));
}
