"""An independent referee of VitalSim's meal responses: simglucose (PyPI, MIT; the UVA/Padova
S2008 model with the academic adult cohort, adult#001–adult#010) eats a meal, and the rise of its
plasma glucose above the pre-meal level, and the time of the peak, are what VitalSim's meals are
compared with.

Usage: meal_simglucose.py CARBS BOLUS HOURS. CARBS grams at minute 60 on basal insulin; BOLUS is
"cr" (a bolus of CARBS/CR units with the meal, each patient's own carb ratio) or "none". Prints
one JSON object: {carbs, bolus, rises: [mg/dL per patient], peakMinutes: [minutes after the
meal], rises45: [mg/dL above the pre-meal level 45 minutes after the meal],
baselines: [mg/dL]}.
"""
import json
import sys

import pandas as pd
import pkg_resources
from simglucose.patient.t1dpatient import Action, T1DPatient


def run(name, carbs, bolus, hours, quest):
    patient = T1DPatient.withName(name)
    basal = patient._params.u2ss * patient._params.BW / 6000  # U/min
    cr = quest.loc[quest.Name == name].squeeze().CR
    plasma = []
    for minute in range(int(hours * 60)):
        eat = carbs if minute == 60 else 0
        dose = carbs / cr if (minute == 60 and bolus == "cr") else 0
        patient.step(Action(insulin=basal + dose, CHO=eat))
        plasma.append(patient.state[3] / patient._params.Vg)  # plasma glucose, mg/dL
    before = plasma[59]
    after = plasma[60:]
    peak = max(after)
    return before, peak - before, after.index(peak), after[45] - before


def main(carbs, bolus, hours):
    quest = pd.read_csv(pkg_resources.resource_filename("simglucose", "params/Quest.csv"))
    rises, peaks, rises45, baselines = [], [], [], []
    for i in range(1, 11):
        before, rise, at, rise45 = run("adult#%03d" % i, carbs, bolus, hours, quest)
        rises.append(round(rise, 1))
        peaks.append(at)
        rises45.append(round(rise45, 1))
        baselines.append(round(before, 1))
    print(json.dumps({"carbs": carbs, "bolus": bolus, "rises": rises, "peakMinutes": peaks, "rises45": rises45,
                      "baselines": baselines}))


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2], float(sys.argv[3]))
